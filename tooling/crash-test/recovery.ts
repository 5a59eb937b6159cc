// After a restart: deliver again every event that no server answered with 2xx, until none is left.
import type { EmulatorControl } from 'credit402-stripe-emulator';
import type { EventRecord } from 'credit402-stripe-emulator';

const delivered = (record: EventRecord): boolean => record.attempts.some((a) => a.status !== null && a.status >= 200 && a.status < 300);

/** Redelivers undelivered events (in creation order) until all are delivered; resolves the events and the redelivery count. */
export async function redeliverPending(control: EmulatorControl, rounds = 10): Promise<{ events: EventRecord[]; redelivered: number }> {
  let redelivered = 0;
  for (let round = 0; ; round++) {
    const events = await control.events();
    const pending = events.filter((record) => !delivered(record));
    if (pending.length === 0) return { events, redelivered };
    if (round === rounds) throw new Error(`${pending.length} events still undelivered after ${rounds} rounds`);
    for (const record of pending) {
      await control.redeliver(record.event.id);
      redelivered++;
    }
  }
}
