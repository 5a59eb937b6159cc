// Conformance cases for leases (acquireLock / releaseLock): mutual exclusion, expiry, release only by the holder, the caller's token.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import { expectFailure, type Skip, storeWith } from './store-conformance-helpers.ts';
import { MAX_LOCK_TOKEN_LENGTH } from '../validate.ts';

type LockingStore = Store & Required<Pick<Store, 'acquireLock' | 'releaseLock'>>;
const newLockName = (): string => `lock-${randomUUID()}`;
const newLockToken = (): string => `token-${randomUUID()}`;

/** Runs `call` to its end, then throws as a reply lost with its connection: the store applied it, its caller never heard. */
async function replyLost(call: Promise<unknown>): Promise<never> {
  await call;
  throw new Error('reply lost');
}

/** A new acquisition of `name` (a lease of `ttlMs`) gets the lease, under another token than `previous`. */
async function expectNewLease(store: LockingStore, name: string, ttlMs: number, previous: string): Promise<void> {
  const next = await store.acquireLock(name, ttlMs);
  expect(next).toEqual(expect.any(String));
  expect(next).not.toBe(previous);
}

/** Registers the lock cases; skipped when the store has no locks. */
export function describeLockConformance(getStore: () => Store): void {
  describe('locks', () => {
    /** The test's store, with locks (else the test is skipped), and a fresh lock name. */
    const locking = (skip: Skip): { store: LockingStore; name: string } => ({
      store: storeWith(getStore, ['acquireLock', 'releaseLock'], skip, 'the store has no locks'),
      name: newLockName(),
    });

    it('grants one lease at a time and lets only its holder release it', async ({ skip }) => {
      const { store, name } = locking(skip);
      const token = await store.acquireLock(name, 10_000);
      expect(token).toEqual(expect.any(String));
      expect(await store.acquireLock(name, 10_000)).toBeNull();
      expect(await store.releaseLock(name, 'not-the-token')).toBe(false);
      expect(await store.acquireLock(name, 10_000)).toBeNull();
      expect(await store.releaseLock(name, token!)).toBe(true);
      expect(await store.releaseLock(name, token!)).toBe(false);
      await expectNewLease(store, name, 10_000, token!);
    });

    it('CR-14.11 grants exactly one of 20 concurrent acquisitions', async ({ skip }) => {
      const { store, name } = locking(skip);
      const tokens = await Promise.all(Array.from({ length: 20 }, () => store.acquireLock(name, 10_000)));
      expect(tokens.filter((token) => token !== null)).toHaveLength(1);
    });

    it('serialises critical sections: 10 workers incrementing through an await lose no update', async ({ skip }) => {
      const { store, name } = locking(skip);
      let counter = 0;
      const worker = async (): Promise<void> => {
        let token = await store.acquireLock(name, 10_000);
        while (token === null) {
          await sleep(2);
          token = await store.acquireLock(name, 10_000);
        }
        const seen = counter;
        await sleep(3);
        counter = seen + 1;
        expect(await store.releaseLock(name, token)).toBe(true);
      };
      await Promise.all(Array.from({ length: 10 }, worker));
      expect(counter).toBe(10);
    });

    it('expires a lease after its TTL; the expired holder can no longer release', async ({ skip }) => {
      const { store, name } = locking(skip);
      const first = await store.acquireLock(name, 100);
      expect(await store.acquireLock(name, 100)).toBeNull();
      await sleep(180);
      const second = await store.acquireLock(name, 10_000);
      expect(second).toEqual(expect.any(String));
      expect(await store.releaseLock(name, first!)).toBe(false);
      expect(await store.acquireLock(name, 10_000)).toBeNull();
      expect(await store.releaseLock(name, second!)).toBe(true);
    });

    it('keeps names independent of each other and of client ids', async ({ skip }) => {
      const { store, name: a } = locking(skip);
      const b = newLockName();
      expect(await store.acquireLock(a, 10_000)).not.toBeNull();
      expect(await store.acquireLock(b, 10_000)).not.toBeNull();
      expect(await store.getClient(a)).toBeNull();
    });

    it('takes the lease under the token given, which alone releases it; the holder\'s own token gets no second lease', async ({ skip }) => {
      const { store, name } = locking(skip);
      const token = newLockToken();
      expect(await store.acquireLock(name, 10_000, token)).toBe(token);
      expect(await store.acquireLock(name, 10_000, token)).toBeNull();
      expect(await store.acquireLock(name, 10_000, newLockToken())).toBeNull();
      expect(await store.releaseLock(name, newLockToken())).toBe(false);
      expect(await store.releaseLock(name, token)).toBe(true);
      expect(await store.releaseLock(name, token)).toBe(false);
      expect(await store.acquireLock(name, 10_000)).toEqual(expect.any(String));
    });

    it('CR-14.12 frees a lease whose acquireLock reply was lost (applied, then thrown) by a release with the token it was sent with', async ({ skip }) => {
      const { store, name } = locking(skip);
      const sent = newLockToken();
      await expect(replyLost(store.acquireLock(name, 60_000, sent))).rejects.toThrow('reply lost');
      expect(await store.acquireLock(name, 60_000)).toBeNull(); // the lease was taken: nobody was told
      expect(await store.releaseLock(name, sent)).toBe(true);
      await expectNewLease(store, name, 60_000, sent);
    });

    it('CR-14.12 releases nothing by the token of an acquisition that found the lease held: the holder keeps it', async ({ skip }) => {
      const { store, name } = locking(skip);
      const holder = await store.acquireLock(name, 60_000);
      const sent = newLockToken();
      await expect(replyLost(store.acquireLock(name, 60_000, sent))).rejects.toThrow('reply lost');
      expect(await store.releaseLock(name, sent)).toBe(false);
      expect(await store.acquireLock(name, 60_000)).toBeNull();
      expect(await store.releaseLock(name, holder!)).toBe(true);
    });

    it(`refuses a token that is not a non-empty string of at most ${MAX_LOCK_TOKEN_LENGTH} characters with a TypeError coded ERR_LOCK_TOKEN, taking nothing`, async ({ skip }) => {
      const { store, name } = locking(skip);
      for (const token of ['', 'x'.repeat(MAX_LOCK_TOKEN_LENGTH + 1), 42, null]) {
        const refused = store.acquireLock(name, 10_000, token as string);
        await expect(refused).rejects.toBeInstanceOf(TypeError);
        await expect(refused).rejects.toMatchObject({ code: 'ERR_LOCK_TOKEN' });
      }
      const longest = 'x'.repeat(MAX_LOCK_TOKEN_LENGTH);
      expect(await store.acquireLock(name, 10_000, longest)).toBe(longest);
      expect(await store.releaseLock(name, longest)).toBe(true);
    });

    it('rejects an empty name with a TypeError and a TTL below 1 ms with a RangeError', async ({ skip }) => {
      const { store } = locking(skip);
      await expectFailure(() => store.acquireLock('', 1000), TypeError);
      await expectFailure(() => store.acquireLock(newLockName(), 0), RangeError);
      await expectFailure(() => store.acquireLock(newLockName(), 1.5), RangeError);
      await expectFailure(() => store.releaseLock(newLockName(), ''), TypeError);
    });
  });
}
