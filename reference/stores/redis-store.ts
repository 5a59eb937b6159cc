// Redis store on node-redis 5: a hash per client, and one Lua script per multi-step operation.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type {
  ClientRecord, Currency, Deduction, DeductionResult, Store, TopUpCredit, TopUpCreditResult, TopUpReversal,
  TopUpReversalResult, TransactionRecord,
} from './store.ts';
import { RedisKeys } from './redis-keys.ts';
import { LuaScript, type RedisCommandClient } from './redis-lua.ts';
import { redisSettings, type RedisStoreOptions } from './redis-options.ts';
import {
  ADD, CREDIT_TOP_UP, DEDUCT, ENSURE, GET_CLIENT, PIN_LEGACY_CURRENCY, RECORD_TRANSACTION, RELEASE_LOCK, REVERSE_TOP_UP,
} from './redis-scripts.ts';
import {
  asArray, recordFields, redact, toClientRecord, toCurrency, toDeductionResult, toReversalResult, toSafeInteger, toText,
  toTransaction,
} from './redis-replies.ts';
import {
  assertCurrency,
  assertDeduction,
  assertLockRequest,
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
  assertTopUpReversal,
  assertTransactionRecord,
  closedError,
} from './validate.ts';

export type { RedisCommandClient } from './redis-lua.ts';
export type { RedisStoreOptions } from './redis-options.ts';

const SCRIPTS = {
  deduct: new LuaScript(DEDUCT),
  add: new LuaScript(ADD),
  ensure: new LuaScript(ENSURE),
  getClient: new LuaScript(GET_CLIENT),
  creditTopUp: new LuaScript(CREDIT_TOP_UP),
  recordTransaction: new LuaScript(RECORD_TRANSACTION),
  reverseTopUp: new LuaScript(REVERSE_TOP_UP),
  pinLegacyCurrency: new LuaScript(PIN_LEGACY_CURRENCY),
  releaseLock: new LuaScript(RELEASE_LOCK),
};
const CONNECT_RETRIES = 5;

/**
 * A store in Redis (a single server or a primary; not Cluster, since a top-up touches keys in
 * several slots). Keys (see {@link RedisKeys}): `<prefix>client:<id>` (hash: `balance:<currency>` per currency
 * held, `top_ups`, `created_at`; kept forever); `<prefix>credited:<paymentIntentId>` (hash: client, currency,
 * amount), `<prefix>reversals:<paymentIntentId>` (hash) and `<prefix>transactions:<id>` (a stream), which expire
 * after `transactionTtlSeconds`; `<prefix>request:…` (a kept idempotent deduction, after its `ttlMs`);
 * `<prefix>event:<id>` (after `eventTtlSeconds`), `<prefix>lock:<name>` (after the lease) and
 * `<prefix>legacy-currency` (kept forever).
 *
 * Data written before balances had a currency is migrated lazily, never by a scan: every script that touches a
 * client hash first moves its old `balance` field to the legacy currency, in the same atomic script (see
 * redis-prelude.ts); credited markers and log entries without a currency read as the legacy currency. The legacy
 * currency is pinned per prefix by the first store that needs it (`legacyCurrency`, default `usd`).
 */
export class RedisStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;
  readonly creditRetentionMs: number;

  readonly #client: RedisCommandClient;
  readonly #keys: RedisKeys;
  readonly #ttl: string;
  readonly #eventTtl: string;
  readonly #record: boolean;
  readonly #configuredLegacy: Currency;
  #legacy: Promise<Currency> | undefined;
  #ownedClient: { close(): Promise<void> } | undefined;
  #closed = false;

  /**
   * Wraps a connected client; use {@link RedisStore.connect} to have the store open (and own) one. Throws a
   * TypeError or RangeError for an invalid option (e.g. a `legacyCurrency` that is not three lowercase letters).
   */
  constructor(options: RedisStoreOptions) {
    if (options?.client === undefined) {
      throw new TypeError('RedisStore needs a connected client; RedisStore.connect(options) creates one');
    }
    const settings = redisSettings(options);
    this.#client = options.client;
    this.#keys = new RedisKeys(settings.prefix);
    this.#ttl = String(settings.ttlSeconds);
    this.#eventTtl = String(settings.eventTtlSeconds);
    this.creditRetentionMs = settings.ttlSeconds * 1000;
    this.#record = settings.record;
    this.#configuredLegacy = settings.legacyCurrency;

    if (this.#record) {
      this.recordTransaction = async (r) => {
        this.#assertOpen();
        assertTransactionRecord(r);
        await this.#run(SCRIPTS.recordTransaction, [this.#keys.log(r.clientId)], [this.#ttl, ...recordFields(r)]);
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        const legacy = await this.#legacyCurrency();
        const reply = await this.#client.sendCommand(['XRANGE', this.#keys.log(clientId), '-', '+']);
        return asArray(reply, 'XRANGE').map((entry) => toTransaction(entry, legacy));
      };
    }
  }

  /**
   * Validates the options, creates a client for `options.url` (unless `options.client` is given), connects it,
   * loads the scripts, pins the prefix's legacy currency, and returns a store that closes that client in
   * {@link close}. Rejects with a TypeError or RangeError for an invalid option, before connecting, and with a
   * message naming the server when it cannot connect after a few retries; with a TypeError when the prefix's
   * pinned legacy currency (`<prefix>legacy-currency`) is not a currency code.
   */
  static async connect(options: RedisStoreOptions = {}): Promise<RedisStore> {
    redisSettings(options);
    if (options.client !== undefined) {
      const store = new RedisStore(options);
      await Promise.all(Object.values(SCRIPTS).map((s) => s.load(store.#client)));
      await store.#legacyCurrency();
      return store;
    }
    const url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    let ready = false;
    const client = createClient({
      url,
      // Fail commands at once while disconnected, so the gate answers 503 instead of holding requests.
      disableOfflineQueue: true,
      socket: {
        // Give up on the first connection after a few quick retries; once up, reconnect forever.
        reconnectStrategy: (retries, cause) =>
          ready ? Math.min(retries * 100, 3000) : retries >= CONNECT_RETRIES ? cause : 200,
      },
    });
    // Errors also reject the command in flight; without a listener node-redis would crash the process.
    client.on('error', () => {});
    try {
      await client.connect();
      ready = true;
      await Promise.all(Object.values(SCRIPTS).map((s) => s.load(client)));
    } catch (error) {
      if (client.isOpen) client.destroy();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`RedisStore: cannot connect to ${redact(url)}: ${reason}`, { cause: error });
    }
    const store = new RedisStore({ ...options, client });
    try {
      await store.#legacyCurrency();
    } catch (error) {
      client.destroy();
      throw error;
    }
    store.#ownedClient = client;
    return store;
  }

  async deductBalance(deduction: Deduction): Promise<DeductionResult> {
    this.#assertOpen();
    assertDeduction(deduction);
    const { clientId, currency, amount, record, request } = deduction;
    const keys = [this.#keys.client(clientId), this.#keys.log(clientId)];
    const args = [currency, String(amount), await this.#legacyCurrency()];
    args.push(record !== undefined && this.#record ? this.#ttl : '');
    if (request !== undefined) {
      keys.push(this.#keys.request(clientId, request.id));
      args.push(String(request.ttlMs), request.fingerprint);
    } else {
      args.push('', '');
    }
    if (record !== undefined && this.#record) args.push(...recordFields(record));
    return toDeductionResult(await this.#run(SCRIPTS.deduct, keys, args));
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertCurrency(currency);
    assertSafeInteger(amount, 'amount', 1);
    const legacy = await this.#legacyCurrency();
    const reply = await this.#run(SCRIPTS.add, [this.#keys.client(clientId)], [currency, String(amount), new Date().toISOString(), legacy]);
    return toSafeInteger(reply, 'balance');
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    const legacy = await this.#legacyCurrency();
    await this.#run(SCRIPTS.ensure, [this.#keys.client(clientId)], [new Date().toISOString(), legacy]);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    const legacy = await this.#legacyCurrency();
    return toClientRecord(await this.#run(SCRIPTS.getClient, [this.#keys.client(clientId)], [legacy]));
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    const { clientId, currency, amount, paymentIntentId } = credit;
    const legacy = await this.#legacyCurrency();
    const reply = await this.#run(
      SCRIPTS.creditTopUp,
      [this.#keys.client(clientId), this.#keys.credited(paymentIntentId), this.#keys.log(clientId), this.#keys.reversals(paymentIntentId)],
      [currency, String(amount), new Date().toISOString(), this.#ttl, this.#record ? '1' : '0', randomUUID(), paymentIntentId, clientId, legacy],
    );
    const [credited, balance] = asArray(reply, 'creditTopUp');
    return { credited: toText(credited, 'credited') === '1', balance: toSafeInteger(balance, 'balance') };
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(paymentIntentId, 'paymentIntentId');
    return (await this.#client.sendCommand(['EXISTS', this.#keys.credited(paymentIntentId)])) === 1;
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    const { paymentIntentId, key, amount } = reversal;
    const legacy = await this.#legacyCurrency();
    const reply = await this.#run(
      SCRIPTS.reverseTopUp,
      [this.#keys.reversals(paymentIntentId), this.#keys.credited(paymentIntentId)],
      [key, String(amount), this.#ttl, this.#keys.prefix, legacy],
    );
    return toReversalResult(reply);
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    return (await this.#client.sendCommand(['EXISTS', this.#keys.event(eventId)])) === 1;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    await this.#client.sendCommand(['SET', this.#keys.event(eventId), '1', 'EX', this.#eventTtl]);
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | null> {
    this.#assertOpen();
    assertLockRequest(name, ttlMs);
    const token = randomUUID();
    const reply = await this.#client.sendCommand(['SET', this.#keys.lock(name), token, 'NX', 'PX', String(ttlMs)]);
    return reply === null ? null : token;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(name, 'name');
    assertNonEmptyString(token, 'token');
    return (await this.#run(SCRIPTS.releaseLock, [this.#keys.lock(name)], [token])) === 1;
  }

  /** Closes the client when the store created it ({@link RedisStore.connect} without `client`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const owned = this.#ownedClient;
    this.#ownedClient = undefined;
    await owned?.close();
  }

  /**
   * The prefix's pinned legacy currency: pinned to `legacyCurrency` by the first store that asks, read back
   * by every other. Asked once per store ({@link connect} asks at once); a failed ask is retried next time.
   */
  #legacyCurrency(): Promise<Currency> {
    if (this.#legacy === undefined) {
      const key = this.#keys.legacyCurrency();
      const pending = this.#run(SCRIPTS.pinLegacyCurrency, [key], [this.#configuredLegacy]).then((reply) => toCurrency(reply, key));
      pending.catch(() => {
        if (this.#legacy === pending) this.#legacy = undefined;
      });
      this.#legacy = pending;
    }
    return this.#legacy;
  }

  async #run(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await script.run(this.#client, keys, args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('CREDIT402_OVERFLOW')) {
        throw new RangeError(error.message.slice('CREDIT402_OVERFLOW '.length), { cause: error });
      }
      throw error;
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError('RedisStore');
  }
}
