// The drawn operations of a history: upstream faults only for a gateway, each followed by the request it fails.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeOperation, historyArbitrary, type HistoryRoute, type HistoryShape, type Operation } from './operations.ts';

const routes: HistoryRoute[] = [
  { key: 'GET /api/weather', method: 'GET', path: '/api/weather', price: 500, currency: 'usd', minTopUp: 50_000 },
  { key: 'GET /api/fails', method: 'GET', path: '/api/fails', price: 400, currency: 'usd', minTopUp: 50_000, failing: 'answer500' },
];

/** The histories of 200 draws of `shape` with a fixed seed. */
function drawn(shape: Omit<HistoryShape, 'routes' | 'paidPost' | 'maxOps'>): Operation[][] {
  return fc.sample(historyArbitrary({ routes, paidPost: false, maxOps: 20, ...shape }), { seed: 15, numRuns: 200 });
}

describe('the operations of a history', () => {
  it('draws upstream faults only for a gateway (CR-15.3), each before the request it fails, sent three times with a request id', () => {
    expect(drawn({ storeFaults: true }).flat().some((operation) => operation.op === 'upstream')).toBe(false);
    const histories = drawn({ storeFaults: true, gateway: true });
    const modes = new Set<string>();
    for (const operations of histories) {
      for (const [index, operation] of operations.entries()) {
        if (operation.op !== 'upstream') continue;
        modes.add(operation.mode);
        const next = operations[index + 1];
        expect(next?.op === 'call' && next.call.card === operation.card && next.call.route === operation.route).toBe(true);
        if (next?.op === 'call' && next.call.rid !== undefined) expect(operations.slice(index + 1, index + 4)).toEqual([next, next, next]);
      }
    }
    expect([...modes].sort()).toEqual(['close', 'cut', 'invalid', 'refuse', 'reset', 'stall']);
    // A gateway's give-backs are refunds: their store faults are drawn without refundOnHandlerError.
    expect(histories.flat().some((operation) => operation.op === 'fault' && operation.refund === true)).toBe(true);
  });

  it('says what the upstream does', () => {
    expect(describeOperation({ op: 'upstream', card: 1, route: 'GET /api/weather', mode: 'stall' })).toBe("the upstream fails card 1's next forwarded request on GET /api/weather (no answer within the gateway's timeout: 504)");
  });
});
