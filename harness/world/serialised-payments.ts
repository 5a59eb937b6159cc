// Judging concurrent first payments of one card (CR-14.7) and a retry after the client gave up (CR-14.8).
import assert from 'node:assert/strict';
import { checkFor } from './check.ts';
import type { Exchange } from './exchange.ts';
import { answered, handlerRan, type PaymentResponse } from './judge.ts';
import { servedOf } from './concurrency.ts';

/** Answers not served must be 503 `service_unavailable` (CR-14.7: a first payment that waited too long for its card's lease); resolves with the served payment-responses. */
export function servedOrUnavailable(batch: Exchange[], routeKey: string): PaymentResponse[] {
  for (const exchange of batch.filter((e) => !handlerRan(e, routeKey))) {
    const answer = answered(exchange);
    const body = answer.json as Record<string, unknown> | undefined;
    checkFor('CR-14.7', () => {
      assert.equal(answer.status, 503, `an answer not served must be 503 service_unavailable, got ${answer.status}: ${answer.text}`);
      assert.equal(body?.errorCode, 'service_unavailable', `errorCode: ${answer.text}`);
    });
  }
  return servedOf(batch, routeKey);
}

/** The served balances are topUp − price, topUp − 2 × price, … each once; exactly one answer carries a chargeId. */
export function expectOneChargeLadder(served: PaymentResponse[], topUp: number, price: number): void {
  const charged = served.filter((response) => response.chargeId !== undefined);
  const actual = served.map((response) => response.creditsRemaining).sort((a, b) => b - a);
  const expected = served.map((_, i) => topUp - (i + 1) * price);
  checkFor('CR-14.7', () => {
    assert.equal(charged.length, 1, `exactly one served answer carries a chargeId, got ${charged.length}`);
    assert.deepEqual(actual, expected, 'one top-up, one deduction per served answer, each balance reported once');
  });
}

/** How many requests the single top-up served, from a served balance; must be one of `allowed`. */
export function servedCount(creditsRemaining: number, topUp: number, price: number, allowed: readonly number[]): number {
  const count = (topUp - creditsRemaining) / price;
  assert.ok(allowed.includes(count), `creditsRemaining ${creditsRemaining} is not ${topUp} − n × ${price} for n in ${allowed.join(' or ')}: a top-up credited twice or lost, or a deduction doubled`);
  return count;
}
