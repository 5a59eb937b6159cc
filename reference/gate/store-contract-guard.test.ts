// A store whose deduction answer breaks the contract fails closed: 503 of unknown outcome, reported, no handler (CR-8.11).
import { describe, expect, it } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import type { DeductionResult } from '../stores/store.ts';
import { ALICE, CARDS, PUBLISHABLE_KEY, ROUTES, SERVER_SECRET } from 'credit402-tooling/testing/decision-fixtures';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { createGate } from './gate.ts';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';

/** A memory store whose deductBalance resolves `answer` instead of a DeductionResult. */
function storeAnswering(answer: unknown): MemoryStore {
  const store = new MemoryStore();
  store.deductBalance = async () => answer as DeductionResult;
  return store;
}

describe('CR-8.11 CR-8.12 a deduction answer outside the store contract', () => {
  it.each([
    ['a bare balance (the wire-level signature of CR-11.2)', 9_500],
    ['null', null],
    ['an unknown status', { status: 'ok', balance: 9_500 }],
    ['deducted without a balance', { status: 'deducted' }],
  ])('CR-8.11 %s fails closed as a failed deduction of unknown outcome, and is reported', async (_name, answer) => {
    const reported: string[] = [];
    const gate = createGate({
      stripePublishableKey: PUBLISHABLE_KEY, serverSecret: SERVER_SECRET, routes: ROUTES, store: storeAnswering(answer),
      processor: new FakeProcessor({ cards: CARDS }), onError: (_error, stage) => reported.push(stage),
    });
    const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: encodeBase64Json({ clientId: ALICE }) });
    expect(decision).toMatchObject({ action: 'respond', status: 503, body: { errorCode: 'service_unavailable', error: OUTCOME_UNKNOWN.DEDUCTION } });
    expect(reported).toEqual(['deductBalance']);
  });
});
