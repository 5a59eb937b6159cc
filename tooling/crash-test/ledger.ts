// What the processor says every client should have: succeeded top-ups minus refunds and disputes, from the emulator's events.
import type { EventRecord } from 'credit402-stripe-emulator';
import { readTopUp } from 'credit402/internal/processor/top-up-metadata';

/** One succeeded top-up and what the processor took back from it. */
export interface LedgerEntry {
  paymentIntentId: string;
  clientId: string;
  units: number;
  /** The currency charged and credited (CR-6.8). */
  currency: string;
  amountCents: number;
  /** Highest cumulative `amount_refunded` seen on its charge. */
  refundedCents: number;
  /** Dispute id → disputed minor units. */
  disputes: Map<string, number>;
}

type Fields = Record<string, unknown>;

/** Builds the ledger from every event the emulator emitted, whatever was delivered. */
export function ledgerFromEvents(records: readonly EventRecord[]): Map<string, LedgerEntry> {
  const ledger = new Map<string, LedgerEntry>();
  for (const { event } of records) {
    const object = event.data.object as unknown as Fields;
    if (event.type !== 'payment_intent.succeeded') continue;
    const topUp = readTopUp({ metadata: object.metadata as Record<string, string>, amountReceivedCents: Number(object.amount_received), currency: object.currency });
    if (typeof topUp === 'string') continue;
    ledger.set(String(object.id), { paymentIntentId: String(object.id), ...topUp, amountCents: Number(object.amount), refundedCents: 0, disputes: new Map() });
  }
  for (const { event } of records) {
    const object = event.data.object as unknown as Fields;
    const entry = ledger.get(String(object.payment_intent));
    if (entry === undefined) continue;
    if (event.type === 'charge.refunded') entry.refundedCents = Math.max(entry.refundedCents, Number(object.amount_refunded));
    if (event.type === 'charge.dispute.created') entry.disputes.set(String(object.id), Number(object.amount));
  }
  return ledger;
}

/** Units a top-up leaves its client after reversals: credited − min(credited, reversed). */
export function netUnits(entry: LedgerEntry): number {
  const reversed = 100 * (entry.refundedCents + [...entry.disputes.values()].reduce((sum, cents) => sum + cents, 0));
  return entry.units - Math.min(entry.units, reversed);
}
