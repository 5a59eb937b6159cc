// Test helper: a gate pricing `GET /a` at 500 units over a scripted store, and the paid requests it must serve (the tests of settle and its refunds).
import { createGate, type Gate, type GateOptions, type ServeDecision } from 'credit402/gate';
import { encodeBase64Json } from 'credit402/protocol';
import type { ScriptedStore } from './scripted-store.ts';
import { TEST_GATE_KEYS } from './test-gate-keys.ts';
import { untouchableProcessor } from './untouchable-processor.ts';

/** The client that pays for `GET /a`: 1000 usd units in the store before the first request. */
export const PAYING_CLIENT = 'c'.repeat(64);

/** What {@link servingGate} resolves to. */
export interface ServingGate {
  gate: Gate;
  /** Sends PAYING_CLIENT's paid `GET /a` (with `requestId` when given); resolves to the serve decision, and throws on any other. */
  serve(requestId?: string): Promise<ServeDecision>;
  /** PAYING_CLIENT's usd balance now, read past the store's script. */
  balance(): Promise<number | undefined>;
}

/** Gives PAYING_CLIENT 1000 units in `store`, and a gate over it (no processor call allowed) pricing `GET /a` at 500, with `options`. */
export async function servingGate(store: ScriptedStore, options: Partial<GateOptions> = {}): Promise<ServingGate> {
  await store.inner.addBalance(PAYING_CLIENT, 'usd', 1_000);
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor: untouchableProcessor(), routes: { 'GET /a': { amount: 500 } }, ...options });
  return {
    gate,
    async serve(requestId) {
      const paymentHeader = encodeBase64Json({ stripe402Version: 1, clientId: PAYING_CLIENT, ...(requestId === undefined ? {} : { requestId }) });
      const decision = await gate.handle({ method: 'GET', url: '/a', paymentHeader });
      if (decision.action !== 'serve') throw new Error(`expected a serve decision, got ${decision.action}`);
      return decision;
    },
    balance: async () => (await store.inner.getClient(PAYING_CLIENT))?.balances.usd,
  };
}
