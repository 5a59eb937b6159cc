// The per-client payment lock: one charge per client at a time; the others wait, then spend the new balance.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MESSAGES } from '../protocol/constants.ts';
import type { Store } from '../stores/store.ts';
import type { GateContext } from './context.ts';
import { StoreUnavailableError, storeFailure } from './failures.ts';

/** The 503 message when the lock stayed taken for the whole wait. */
export const PAYMENT_IN_PROGRESS =
  'Another payment with this card is in progress; retry this request shortly (nothing was charged or deducted by this one)';

/**
 * Store calls a payment makes under the lock, each within the gate's store deadline: the deduction before the charge,
 * the store id, the client, the credit, the deduction after it, and the release.
 */
const STORE_CALLS_UNDER_LOCK = 6;

/** Room for the event loops and clocks between the gate and the store. */
const LEASE_MARGIN_MS = 1_000;

/** Lease of the payment lock when the processor does not say how long a payment can take (`longestPaymentMs`). */
export const FALLBACK_LOCK_TTL_MS = 60_000;

/**
 * The default lease of the payment lock (`lockTtlMs`): just longer than the longest payment the gate can make under
 * it, the processor's `longestPaymentMs` (its timeouts times its attempts) plus {@link STORE_CALLS_UNDER_LOCK} store
 * calls of `storeTimeoutMs` and a second. A lease whose holder died, or whose acquisition's answer was lost with the
 * instance that sent it, frees the card once no payment can still be running under it; a lease held by a live payment
 * never lapses before the payment settles. {@link FALLBACK_LOCK_TTL_MS} when the processor does not say.
 */
export function paymentLockLeaseMs(longestPaymentMs: number | undefined, storeTimeoutMs: number): number {
  if (longestPaymentMs === undefined) return FALLBACK_LOCK_TTL_MS;
  return Math.ceil(longestPaymentMs) + STORE_CALLS_UNDER_LOCK * storeTimeoutMs + LEASE_MARGIN_MS;
}

const FIRST_POLL_MS = 5;
const LONGEST_POLL_MS = 100;
/** Pause between two background attempts to release a lease whose release failed. */
export const ORPHAN_RETRY_MS = 250;

/** A store with both lock methods. */
type LockingStore = Required<Pick<Store, 'acquireLock' | 'releaseLock'>>;

function hasLocks(store: Store): store is Store & LockingStore {
  return store.acquireLock !== undefined && store.releaseLock !== undefined;
}

/**
 * Leases a gate took but could not release, because the store failed or was too slow just then (typically the
 * outage that also failed the credit), and leases it may have taken: an `acquireLock` whose answer is unknown (a
 * timeout, a connection lost after the command was sent), kept under the token it was sent with. Each is released
 * before the next acquisition of its name by this gate, and retried in the background every {@link ORPHAN_RETRY_MS}
 * until it expires, so that once the store answers again the retry a 503 asked for is not kept waiting by a lease
 * nobody holds, whichever instance it reaches. Releasing by the token is safe when the lease was never taken: the
 * store releases only its holder's token (CR-14.12).
 */
export class OrphanedLeases {
  /** Token → lease. */
  readonly #leases = new Map<string, { name: string; expiresAt: number }>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly store: Pick<LockingStore, 'releaseLock'>) {}

  /** Keeps the lease `name`/`token`, which expires at `expiresAt` (ms since the epoch), until it is released. */
  add(name: string, token: string, expiresAt: number): void {
    this.#leases.set(token, { name, expiresAt });
    this.#schedule();
  }

  /** How many leases are still to release. */
  get size(): number {
    return this.#leases.size;
  }

  /** Tries once to release the orphaned leases on `name`; never rejects (a failure leaves them for the next try). */
  async release(name: string): Promise<void> {
    if (this.#leases.size === 0) return;
    const now = Date.now();
    const tries: Promise<void>[] = [];
    for (const [token, lease] of this.#leases) {
      if (lease.name !== name) continue;
      if (lease.expiresAt <= now) this.#leases.delete(token);
      else tries.push(this.#releaseOne(name, token));
    }
    await Promise.all(tries);
  }

  async #releaseOne(name: string, token: string): Promise<void> {
    try {
      // true: released; false: it expired or was taken over since. Either way it holds nobody up any more.
      await this.store.releaseLock(name, token);
      this.#leases.delete(token);
    } catch {
      // the store still fails: the next attempt, or the expiry, settles it
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#leases.size === 0) return;
    this.#timer = setTimeout(() => {
      const names = new Set([...this.#leases.values()].map((lease) => lease.name));
      void Promise.all([...names].map((name) => this.release(name))).then(() => {
        this.#timer = undefined;
        this.#schedule();
      });
    }, ORPHAN_RETRY_MS);
    this.#timer.unref();
  }
}

const orphansByGate = new WeakMap<GateContext, OrphanedLeases>();

/** The orphaned leases of one gate, whose store is `store`. */
function orphanedLeases(ctx: GateContext, store: Pick<LockingStore, 'releaseLock'>): OrphanedLeases {
  let orphans = orphansByGate.get(ctx);
  if (orphans === undefined) {
    orphans = new OrphanedLeases(store);
    orphansByGate.set(ctx, orphans);
  }
  return orphans;
}

/**
 * Runs `body` holding the lease `payment:<clientId>`, released on every path. While another request
 * holds it, polls with a growing pause for up to `lock.waitMs`, then fails with a 503. Without locks in
 * the store, runs `body` directly. A lease whose release fails, or whose acquisition failed without saying whether it
 * took the lease, is handed to {@link OrphanedLeases}.
 */
export async function withPaymentLock<T>(ctx: GateContext, clientId: string, body: () => Promise<T>): Promise<T> {
  const { store, lock, report } = ctx;
  if (lock === undefined || !hasLocks(store)) return body();
  const name = `payment:${clientId}`;
  // Each acquisition is sent with its token, so that a lease whose answer was lost can still be released by it. A store
  // written before `acquireLock` took a token ignores it and resolves one of its own, which is the one used then.
  const acquire = store.acquireLock.bind(store);
  const orphans = orphanedLeases(ctx, store);
  const deadline = Date.now() + lock.waitMs;
  let pause = FIRST_POLL_MS;
  for (;;) {
    await orphans.release(name);
    const asked = Date.now();
    const sent = randomUUID();
    let token: string | null;
    try {
      token = await acquire(name, lock.ttlMs, sent);
    } catch (error) {
      // Unknown whether the lease was taken: released by the token sent, like a lease whose release failed.
      orphans.add(name, sent, asked + lock.ttlMs);
      throw storeFailure(report, 'acquireLock', MESSAGES.STORE_UNAVAILABLE, error);
    }
    if (token !== null) return runHolding(store, report, orphans, { name, token, expiresAt: asked + lock.ttlMs }, body);
    const left = deadline - Date.now();
    if (left <= 0) throw new StoreUnavailableError(PAYMENT_IN_PROGRESS);
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, LONGEST_POLL_MS);
  }
}

/** Runs `body` under the taken lease, then releases it; a failed release leaves it to `orphans`. */
async function runHolding<T>(
  store: Pick<LockingStore, 'releaseLock'>,
  report: GateContext['report'],
  orphans: OrphanedLeases,
  lease: { name: string; token: string; expiresAt: number },
  body: () => Promise<T>,
): Promise<T> {
  const { name, token, expiresAt } = lease;
  try {
    return await body();
  } finally {
    await store.releaseLock(name, token).catch((error: unknown) => {
      report(error, 'releaseLock');
      orphans.add(name, token, expiresAt);
    });
  }
}
