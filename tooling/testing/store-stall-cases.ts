// Test helper: cases shared by the stall tests of the stores on another host (Redis, Postgres): a stall past the caller's deadline applies nothing, a shorter one changes nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { FreezingProxy } from './freezing-proxy.ts';
import { StoreTimeoutError, withStoreDeadlines, type Deduction, type Store } from 'credit402/stores';
import { deductionRecord, newClientId, newRefundId, newRequestId } from 'credit402/stores/conformance';

/** A store reached through `proxy` (`stalled`) and the same storage reached directly (`direct`). */
export interface StallSetup {
  proxy: FreezingProxy;
  stalled: Store;
  direct: Store;
}

/** One attempt of a paid request of 500 usd with request id `requestId`, as the gate sends it (a fresh record each time). */
export const stallAttempt = (clientId: string, requestId: string): Deduction => ({
  clientId, currency: 'usd', amount: 500, record: deductionRecord(clientId, 500), request: { id: requestId, fingerprint: 'GET /x usd 500', ttlMs: 60_000 },
});

/** The usd balance of `clientId`, read directly. */
export const directUsd = async (direct: Store, clientId: string) => (await direct.getClient(clientId))?.balances.usd;

/** Deductions of three clients (and a refund) that met a stall longer than their 200 ms apply nothing when it ends. */
export async function expectStalledGroupAppliesNothing({ proxy, stalled, direct }: StallSetup): Promise<void> {
  const timed = withStoreDeadlines(stalled, 200);
  const clients = [newClientId(), newClientId(), newClientId()];
  for (const clientId of clients) await direct.addBalance(clientId, 'usd', 1_000);
  proxy.freeze();
  const late = clients.map((clientId) => timed.deductBalance(stallAttempt(clientId, newRequestId())));
  const refund = timed.refundDeduction({ clientId: clients[0] as string, currency: 'usd', amount: 100, refundId: newRefundId() });
  for (const call of [...late, refund]) await expect(call).rejects.toBeInstanceOf(StoreTimeoutError);
  await sleep(200);
  proxy.thaw();
  await sleep(300); // the commands reach the server now, long after their callers answered 503
  for (const clientId of clients) expect(await directUsd(direct, clientId)).toBe(1_000);
}

/** A stall shorter than the caller's deadline (2 s) changes nothing: the deduction is applied and answered. */
export async function expectShortStallApplied({ proxy, stalled, direct }: StallSetup): Promise<void> {
  const clientId = newClientId();
  await direct.addBalance(clientId, 'usd', 1_000);
  const slow = withStoreDeadlines(stalled, 2_000);
  proxy.freeze();
  const pending = slow.deductBalance(stallAttempt(clientId, newRequestId()));
  await sleep(100);
  proxy.thaw();
  expect(await pending).toEqual({ status: 'deducted', balance: 500 });
}
