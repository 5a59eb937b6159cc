// Integration tests of a Redis store reset under a running server (CR-14.13): the same card paying again is charged anew, and a replayed PaymentIntent is never credited twice.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from 'redis';
import { RedisStore } from '../stores/redis/redis-store.ts';
import { deleteKeys, redisUrlFromEnv } from 'credit402-tooling/testing/redis';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';
import { CREDIT_REFUSED_AFTER_RESET } from './store-outcome.ts';

const url = redisUrlFromEnv();
const WEATHER = 'GET /api/weather';

/** The balance in usd Redis holds for `clientId` under `prefix` (null: no client record). */
async function redisBalance(prefix: string, clientId: string): Promise<number | null> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    const balance = await client.hGet(`${prefix}client:${clientId}`, 'balance:usd');
    return balance === null ? null : Number(balance);
  } finally {
    client.destroy();
  }
}

/** What a payment-response says of the charge that paid it. */
interface Charged {
  chargeId: string;
  clientId: string;
  creditsRemaining: number;
}

/** A new card on `stack`'s emulator, and `pay()`: WEATHER paid with that card, the answer with its payment-response read as `charged`. */
async function newCard(stack: ReturnType<typeof useReferenceStack>) {
  const paymentMethodId = await createCardPaymentMethod(stack.emulator.url);
  return async () => {
    const answer = await paidFetch(stack.server.url, WEATHER, { paymentMethodId });
    return { ...answer, charged: answer.paymentResponse as Charged };
  };
}

/** The PaymentIntent creations `stack`'s emulator journaled, in order. */
const chargesOn = (stack: ReturnType<typeof useReferenceStack>) => stack.control.journal({ method: 'POST', path: '/v1/payment_intents' });

describe('a Redis flushed under a running server (CR-14.13)', () => {
  const keyPrefix = `credit402-test:reset:${randomUUID()}:`;
  const stack = useReferenceStack({ store: { kind: 'redis', url, keyPrefix } });
  afterAll(async () => {
    await deleteKeys(url, keyPrefix);
  });

  it('CR-14.13 charges the same card anew after the prefix was deleted, and credits one top-up, never the old one again', async () => {
    const pay = await newCard(stack);
    const { charged: paid } = await pay();
    expect(paid.creditsRemaining).toBe(49_500);
    expect(await deleteKeys(url, keyPrefix)).toBeGreaterThan(0);

    const again = await pay();
    const repaid = again.charged;
    expect(again.status).toBe(200);
    expect(repaid.clientId).toBe(paid.clientId);
    // A new PaymentIntent, not the replay of the first one that the old key would have brought back.
    expect(repaid.chargeId).not.toBe(paid.chargeId);
    const attempts = await chargesOn(stack);
    expect(attempts.map((attempt) => attempt.replayed)).toEqual([false, false]);
    expect(new Set(attempts.map((attempt) => (attempt.response as { id: string }).id))).toEqual(new Set([paid.chargeId, repaid.chargeId]));
    expect(attempts[1]?.idempotencyKey).not.toBe(attempts[0]?.idempotencyKey);
    // One top-up since the reset, less one deduction: never the first top-up credited a second time.
    expect(repaid.creditsRemaining).toBe(49_500);
    expect(await redisBalance(keyPrefix, paid.clientId)).toBe(49_500);
  });
});

const windowPrefix = `credit402-test:reset-window:${randomUUID()}:`;
const windowStore = await RedisStore.connect({ url, keyPrefix: windowPrefix });

describe('a Redis flushed between reading the store id and the charge (CR-14.13)', () => {
  const keyPrefix = windowPrefix;
  const store = windowStore;
  // The flush lands right after the gate read the store id: the key it then builds repeats the first charge's.
  let flushAfterStoreId = false;
  const readStoreId = store.getStoreId.bind(store);
  store.getStoreId = async () => {
    const id = await readStoreId();
    if (flushAfterStoreId) {
      flushAfterStoreId = false;
      await deleteKeys(url, keyPrefix);
    }
    return id;
  };
  // A top-up of one request: the balance is 0 after each payment, so every payment of the card charges.
  const routes = { [WEATHER]: { amount: 50_000, minTopUp: 50_000, description: 'Weather' } };
  const stack = useReferenceStack({ routes }, { store });
  beforeEach(async () => {
    await stack.control.clearJournal();
  });
  afterAll(async () => {
    await store.close();
    await deleteKeys(url, keyPrefix);
  });

  it('CR-14.13 refuses to credit the replayed PaymentIntent (503, nothing credited), and the retry is charged under a new key', async () => {
    const pay = await newCard(stack);
    const { charged: paid } = await pay();
    expect(paid.creditsRemaining).toBe(0);

    flushAfterStoreId = true;
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const refused = await pay();
    logged.mockRestore();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ errorCode: 'service_unavailable', error: CREDIT_REFUSED_AFTER_RESET });
    const replay = (await chargesOn(stack))[1]!;
    expect(replay.replayed).toBe(true);
    expect((replay.response as { id: string }).id).toBe(paid.chargeId);
    expect(await redisBalance(keyPrefix, paid.clientId)).toBeNull();

    const retried = await pay();
    const repaid = retried.charged;
    expect(retried.status).toBe(200);
    expect(repaid.chargeId).not.toBe(paid.chargeId);
    expect(repaid.creditsRemaining).toBe(0);
    const attempts = await chargesOn(stack);
    expect(attempts).toHaveLength(3);
    expect(attempts[2]?.replayed).toBe(false);
    expect(attempts[2]?.idempotencyKey).not.toBe(attempts[1]?.idempotencyKey);
    expect(await redisBalance(keyPrefix, paid.clientId)).toBe(0);
  });
});
