// The per-client payment lock: one charge per client at a time; the others wait, then spend the new balance.
import { setTimeout as sleep } from 'node:timers/promises';
import { MESSAGES } from '../protocol/constants.ts';
import type { GateContext } from './context.ts';
import { StoreUnavailableError, storeCall } from './failures.ts';

/** The 503 message when the lock stayed taken for the whole wait. */
export const PAYMENT_IN_PROGRESS =
  'Another payment with this card is in progress; retry this request shortly (nothing was charged or deducted by this one)';

const FIRST_POLL_MS = 5;
const LONGEST_POLL_MS = 100;

/**
 * Runs `body` holding the lease `payment:<clientId>`, released on every path. While another request
 * holds it, polls with a growing pause for up to `lock.waitMs`, then fails with a 503. Without locks in
 * the store, runs `body` directly.
 */
export async function withPaymentLock<T>(ctx: GateContext, clientId: string, body: () => Promise<T>): Promise<T> {
  const { store, lock, report } = ctx;
  if (lock === undefined || !store.acquireLock || !store.releaseLock) return body();
  const name = `payment:${clientId}`;
  const acquire = store.acquireLock.bind(store);
  const deadline = Date.now() + lock.waitMs;
  let pause = FIRST_POLL_MS;
  let token: string | null;
  while ((token = await storeCall(report, 'acquireLock', MESSAGES.STORE_UNAVAILABLE, () => acquire(name, lock.ttlMs))) === null) {
    const left = deadline - Date.now();
    if (left <= 0) throw new StoreUnavailableError(PAYMENT_IN_PROGRESS);
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, LONGEST_POLL_MS);
  }
  try {
    return await body();
  } finally {
    await store.releaseLock(name, token).catch((error: unknown) => report(error, 'releaseLock'));
  }
}
