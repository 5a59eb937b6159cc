// The minimizer after fast-check's shrinking: a history cut after its failing operation and pruned while it fails on the same requirements.
import { describe, expect, it } from 'vitest';
import { minimize, type Outcome } from './minimize.ts';
import type { Call, Operation } from './operations.ts';

const spend = (card: number, rid?: number): Operation => ({ op: 'call', call: { card, route: 'GET /api/weather', ...(rid === undefined ? {} : { rid }) } });
const pay = (card: number): Operation => ({ op: 'call', call: { card, route: 'GET /api/weather', pay: { method: 0 } } });

/** A fake target that fails CR-6.9 once card 1 spends with rid 0 after card 0 paid, at that operation. */
async function fake(operations: Operation[]): Promise<Outcome> {
  const calls = (operation: Operation): Call[] => (operation.op === 'call' ? [operation.call] : operation.op === 'burst' ? operation.calls : []);
  const paid = operations.findIndex((operation) => calls(operation).some((call) => call.card === 0 && call.pay));
  const at = operations.findIndex((operation, index) => index > paid && calls(operation).some((call) => call.card === 1 && call.rid === 0));
  return paid >= 0 && at >= 0 ? { ids: ['CR-6.9'], failedOp: at } : {};
}

describe('minimize', () => {
  it('cuts after the failing operation and leaves out every operation and burst call the failure does not need', async () => {
    const history: Operation[] = [spend(2), pay(0), spend(0, 0), { op: 'burst', calls: [{ card: 2, route: 'GET /api/weather' }, { card: 1, route: 'GET /api/weather', rid: 0 }] }, spend(2), pay(1)];
    const { operations, outcome } = await minimize(history, await fake(history), fake, Date.now() + 5000);
    expect(operations).toEqual([pay(0), { op: 'call', call: { card: 1, route: 'GET /api/weather', rid: 0 } }]);
    expect(outcome.ids).toEqual(['CR-6.9']);
  });

  it('keeps a history whose smaller versions fail on other requirements or pass', async () => {
    const history = [pay(0), spend(1, 0)];
    const other = async (operations: Operation[]): Promise<Outcome> => (operations.length === 2 ? { ids: ['CR-6.9'], failedOp: 1 } : { ids: ['CR-6.2'] });
    expect((await minimize(history, { ids: ['CR-6.9'], failedOp: 1 }, other, Date.now() + 5000)).operations).toEqual(history);
  });
});
