// Concurrent requests and how their answers split into served requests and insufficient-credits challenges.
import assert from 'node:assert/strict';
import { checkFor } from './check.ts';
import type { Exchange } from './exchange.ts';
import { expectChallenge, expectServed, handlerRan, type PaymentResponse } from './judge.ts';

/** Starts `count` requests at the same time and resolves with every exchange, in start order. */
export function atOnce(count: number, send: () => Promise<Exchange>): Promise<Exchange[]> {
  return Promise.all(Array.from({ length: count }, send));
}

/** Runs `tasks` with at most `limit` in flight. */
export async function withConcurrency<T>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await run(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The payment-responses of the served answers of a batch (each judged in full). */
export function servedOf(batch: Exchange[], routeKey: string): PaymentResponse[] {
  return batch.filter((exchange) => handlerRan(exchange, routeKey)).map((exchange) => expectServed(exchange, routeKey));
}

/** Every answer of the batch that was not served must be the insufficient-credits challenge; returns how many. */
export function expectRestInsufficient(batch: Exchange[], routeKey: string, challenge: Record<string, unknown>): number {
  const rest = batch.filter((exchange) => !handlerRan(exchange, routeKey));
  for (const exchange of rest) expectChallenge(exchange, challenge, 'insufficient');
  return rest.length;
}

/** The served creditsRemaining values must be exactly {from, from+step, …, to}, each once (CR-6.7: no deduction lost or doubled). */
export function expectCreditsLadder(served: PaymentResponse[], step: number, from: number, to: number): void {
  const actual = served.map((response) => response.creditsRemaining).sort((a, b) => a - b);
  const expected: number[] = [];
  for (let value = from; value <= to; value += step) expected.push(value);
  checkFor('CR-6.7', () => assert.deepEqual(actual, expected, 'each balance between the deductions is reported exactly once: no deduction was lost or doubled'));
}
