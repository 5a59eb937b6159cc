// Unit tests for waiting on pending gate decisions before the store is closed.
import { describe, expect, it } from 'vitest';
import type { Gate } from '../gate/index.ts';
import { trackInFlight } from './in-flight.ts';

function slowGate(): { gate: Gate; finish: () => void } {
  let finish = (): void => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const gate: Gate = {
    routes: new Map(),
    match: () => undefined,
    defineRoute: () => {
      throw new Error("unused");
    },
    handle: async () => {
      await done;
      return { action: 'pass' };
    },
  };
  return { gate, finish };
}

describe('trackInFlight', () => {
  it('drains at once when nothing is pending', async () => {
    await expect(trackInFlight(slowGate().gate).drain(1_000)).resolves.toBeUndefined();
  });

  it('waits for a pending decision before draining', async () => {
    const { gate, finish } = slowGate();
    const tracked = trackInFlight(gate);
    const decision = tracked.gate.handle({ method: 'GET', url: '/', paymentHeader: undefined });
    let drained = false;
    const draining = tracked.drain(5_000).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false);
    finish();
    await decision;
    await draining;
    expect(drained).toBe(true);
  });

  it('gives up after the timeout', async () => {
    const tracked = trackInFlight(slowGate().gate);
    void tracked.gate.handle({ method: 'GET', url: '/', paymentHeader: undefined });
    const started = Date.now();
    await tracked.drain(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
