// Unit tests of the scheduled reconciliation with a fake processor: runs on the interval, never overlaps, stops cleanly.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Processor, SucceededTopUp } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { RECONCILE_OVERLAP_MS, scheduleReconcile } from './reconcile-schedule.ts';

const unreachable = (): never => { throw new Error('not used'); };

/** A processor listing the given top-ups; each listing waits for `gate` when set, and records its `since`. */
function listingProcessor(topUps: SucceededTopUp[]) {
  const state = { listings: 0, concurrent: 0, maxConcurrent: 0, sinces: [] as Array<Date | undefined>, gate: undefined as Promise<void> | undefined };
  const processor: Processor = {
    getCardFingerprint: unreachable, findOrCreateCustomer: unreachable, charge: unreachable,
    async *listSucceededTopUps(options) {
      state.listings++;
      state.sinces.push(options?.since);
      state.concurrent++;
      state.maxConcurrent = Math.max(state.maxConcurrent, state.concurrent);
      try {
        await state.gate;
        yield* topUps;
      } finally {
        state.concurrent--;
      }
    },
  };
  return { processor, state };
}

const ALICE = 'a'.repeat(64);

afterEach(() => {
  vi.useRealTimers();
});

describe('scheduleReconcile', () => {
  it('credits on each interval, logs one line of counts per run, and later runs look back from the last run', async () => {
    vi.useFakeTimers({ now: 1_000_000_000_000 });
    const store = new MemoryStore();
    const { processor, state } = listingProcessor([{ paymentIntentId: 'pi_1', clientId: ALICE, units: 50_000, currency: 'usd', created: 0 }]);
    const lines: string[] = [];
    const schedule = scheduleReconcile({ processor, store, everyMs: 1000, log: (line) => lines.push(line) });
    expect(state.listings).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await store.getClient(ALICE)).toMatchObject({ balances: { usd: 50_000 }, topUps: 1 });
    expect(lines).toEqual([expect.stringMatching(/^credit402 reconcile: 1 succeeded top-ups since \S+, 0 already credited, 1 credited now \(50000 units\) in \d+ ms$/)]);
    expect(lines[0]).not.toContain(ALICE);
    await vi.advanceTimersByTimeAsync(1000);
    expect(lines[1]).toMatch(/1 already credited, 0 credited now \(0 units\)/);
    expect(await store.getClient(ALICE)).toMatchObject({ balances: { usd: 50_000 }, topUps: 1 });
    expect(state.sinces[1]?.getTime()).toBe(1_000_000_000_000 + 1000 - RECONCILE_OVERLAP_MS);
    await schedule.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.listings).toBe(2);
  });

  it('never overlaps runs, and stop waits for the run under way', async () => {
    const { processor, state } = listingProcessor([{ paymentIntentId: 'pi_1', clientId: ALICE, units: 1, currency: 'usd', created: 0 }]);
    let release!: () => void;
    state.gate = new Promise((resolve) => { release = resolve; });
    const schedule = scheduleReconcile({ processor, store: new MemoryStore(), everyMs: 5, log: () => {} });
    const first = schedule.runNow();
    expect(schedule.runNow()).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.listings).toBe(1);
    let stopped = false;
    const stopping = schedule.stop().then(() => { stopped = true; });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await first).toMatchObject({ credited: [{ paymentIntentId: 'pi_1' }] });
    expect(state.maxConcurrent).toBe(1);
    expect(await schedule.runNow()).toBeUndefined();
    expect(state.listings).toBe(1);
  });

  it('reports a failed run and goes on with the next one', async () => {
    const { processor, state } = listingProcessor([]);
    state.gate = Promise.reject(new Error('Stripe is down'));
    state.gate.catch(() => {});
    const errors: unknown[] = [];
    const lines: string[] = [];
    const schedule = scheduleReconcile({ processor, store: new MemoryStore(), everyMs: 5, log: (line) => lines.push(line), onError: (error) => errors.push(error) });
    expect(await schedule.runNow()).toBeUndefined();
    expect(errors).toEqual([expect.objectContaining({ message: 'Stripe is down' })]);
    state.gate = undefined;
    await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0));
    await schedule.stop();
  });
});
