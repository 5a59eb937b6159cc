// The engine as a plain function: a request id's repeat whose answer was lost is not used up (CR-6.9), over a scripted store and the fake processor.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { CARDS, PUBLISHABLE_KEY, ROUTES, SERVER_SECRET } from 'credit402-tooling/testing/decision-fixtures';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { ScriptedStore, type StoreFault } from 'credit402-tooling/testing/scripted-store';
import type { GateDecision } from './decision.ts';
import { createGate } from './gate.ts';

const CLIENT = 'c'.repeat(64);
const REQUEST_ID = 'retried-request-1';

/** A gate over a ScriptedStore holding 10000 usd for CLIENT, with `faults` and a store bound of 100 ms (a lease of 1200 ms). */
async function gateWith(faults: StoreFault[]) {
  const store = new ScriptedStore(faults);
  await store.inner.addBalance(CLIENT, 'usd', 10_000);
  const reported: string[] = [];
  const gate = createGate({
    stripePublishableKey: PUBLISHABLE_KEY, serverSecret: SERVER_SECRET, store, processor: new FakeProcessor({ cards: CARDS }), routes: ROUTES,
    storeTimeoutMs: 100, onError: (_error, stage) => void reported.push(stage),
  });
  const send = (): Promise<GateDecision> =>
    gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: encodeBase64Json({ clientId: CLIENT, requestId: REQUEST_ID }) });
  return { store, send, reported };
}

/** The decision's status: 200 for a paid pass, else the answer's status. */
const statusOf = (decision: GateDecision): number => (decision.action === 'respond' ? decision.status : 200);

describe('a repeat whose answer was lost (CR-6.9)', () => {
  it('is not used up: after its claim lapses, the next retry is served, and one deduction was made in all', async () => {
    // Call 1 deducts and its reply is lost; call 2 (the repeat) is applied and its reply is lost too.
    const { store, send } = await gateWith([
      { method: 'deductBalance', nth: 1, script: 'lost' },
      { method: 'deductBalance', nth: 2, script: 'lost' },
    ]);
    expect(statusOf(await send())).toBe(503);
    expect(statusOf(await send())).toBe(503);
    // The lost repeat's claim holds for its lease: a retry meanwhile is told to retry, and nothing is deducted.
    const meanwhile = await send();
    expect(statusOf(meanwhile)).toBe(503);
    expect(meanwhile.action === 'respond' && JSON.stringify(meanwhile.body)).toContain('Another attempt of this request is being answered');
    await sleep(1_300);
    expect(statusOf(await send())).toBe(200);
    expect((await store.inner.getClient(CLIENT))?.balances.usd).toBe(9_500);
    // That repeat was answered and confirmed: the id is spent now.
    await sleep(50);
    const spent = await send();
    expect(statusOf(spent)).toBe(402);
    expect((await store.inner.getClient(CLIENT))?.balances.usd).toBe(9_500);
  });

  it('is used up once answered: a later retry is refused as a spent request id', async () => {
    const { send } = await gateWith([{ method: 'deductBalance', nth: 1, script: 'lost' }]);
    expect(statusOf(await send())).toBe(503);
    expect(statusOf(await send())).toBe(200);
    await sleep(50);
    expect(statusOf(await send())).toBe(402);
  });
});
