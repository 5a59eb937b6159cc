// Redis store on node-redis 5: a hash per client, and one Lua script per multi-step operation.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type {
  ClientRecord, Store, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult, TransactionRecord,
} from './store.ts';
import { LuaScript, type RedisCommandClient } from './redis-lua.ts';
import { ADD, CREDIT_TOP_UP, DEDUCT, ENSURE, RECORD_TRANSACTION, RELEASE_LOCK, REVERSE_TOP_UP } from './redis-scripts.ts';
import { asArray, recordFields, redact, toSafeInteger, toText, toTransaction } from './redis-replies.ts';
import {
  assertDeductionRecord,
  assertLockRequest,
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
  assertTopUpReversal,
  assertTransactionRecord,
  closedError,
} from './validate.ts';

export type { RedisCommandClient } from './redis-lua.ts';

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Server URL for {@link RedisStore.connect}; default `process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'`. */
  url?: string;
  /** An existing connected node-redis client (default type mapping); the store never closes it. */
  client?: RedisCommandClient;
  /** Prefix of every key the store writes; default `'credit402:'`. */
  keyPrefix?: string;
  /** Lifetime of transaction-log entries, credited-PaymentIntent markers and reversals; default 90 days. */
  transactionTtlSeconds?: number;
  /** Lifetime of processed webhook event ids; default 30 days (Stripe retries for 3). */
  eventTtlSeconds?: number;
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
}

const SCRIPTS = {
  deduct: new LuaScript(DEDUCT),
  add: new LuaScript(ADD),
  ensure: new LuaScript(ENSURE),
  creditTopUp: new LuaScript(CREDIT_TOP_UP),
  recordTransaction: new LuaScript(RECORD_TRANSACTION),
  reverseTopUp: new LuaScript(REVERSE_TOP_UP),
  releaseLock: new LuaScript(RELEASE_LOCK),
};
const DEFAULT_TTL_SECONDS = 90 * 24 * 60 * 60;
const DEFAULT_EVENT_TTL_SECONDS = 30 * 24 * 60 * 60;
const CONNECT_RETRIES = 5;

/**
 * A store in Redis (a single server or a primary; not Cluster, since a top-up touches keys in
 * several slots). Keys: `<prefix>client:<id>` (hash: balance, top_ups, created_at; kept forever);
 * `<prefix>credited:<paymentIntentId>`, `<prefix>reversals:<paymentIntentId>` (hash) and
 * `<prefix>transactions:<id>` (a stream), which expire after `transactionTtlSeconds`;
 * `<prefix>event:<id>` (after `eventTtlSeconds`) and `<prefix>lock:<name>` (after the lease).
 */
export class RedisStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;
  readonly creditRetentionMs: number;

  readonly #client: RedisCommandClient;
  readonly #prefix: string;
  readonly #ttl: string;
  readonly #eventTtl: string;
  readonly #record: boolean;
  #ownedClient: { close(): Promise<void> } | undefined;
  #closed = false;

  /** Wraps a connected client; use {@link RedisStore.connect} to have the store open (and own) one. */
  constructor(options: RedisStoreOptions) {
    if (options?.client === undefined) {
      throw new TypeError('RedisStore needs a connected client; RedisStore.connect(options) creates one');
    }
    const ttl = options.transactionTtlSeconds ?? DEFAULT_TTL_SECONDS;
    assertSafeInteger(ttl, 'transactionTtlSeconds', 1);
    const eventTtl = options.eventTtlSeconds ?? DEFAULT_EVENT_TTL_SECONDS;
    assertSafeInteger(eventTtl, 'eventTtlSeconds', 1);
    const prefix = options.keyPrefix ?? 'credit402:';
    if (typeof prefix !== 'string') throw new TypeError('keyPrefix must be a string');
    this.#client = options.client;
    this.#prefix = prefix;
    this.#ttl = String(ttl);
    this.#eventTtl = String(eventTtl);
    this.creditRetentionMs = ttl * 1000;
    this.#record = options.recordTransactions ?? true;

    if (this.#record) {
      this.recordTransaction = async (r) => {
        this.#assertOpen();
        assertTransactionRecord(r);
        await this.#run(SCRIPTS.recordTransaction, [this.#logKey(r.clientId)], [this.#ttl, ...recordFields(r)]);
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        const reply = await this.#client.sendCommand(['XRANGE', this.#logKey(clientId), '-', '+']);
        return asArray(reply, 'XRANGE').map(toTransaction);
      };
    }
  }

  /**
   * Creates a client for `options.url` (unless `options.client` is given), connects it, loads the
   * scripts, and returns a store that closes that client in {@link close}. Rejects with a message
   * naming the server when it cannot connect after a few retries.
   */
  static async connect(options: RedisStoreOptions = {}): Promise<RedisStore> {
    if (options.client !== undefined) {
      const store = new RedisStore(options);
      await Promise.all(Object.values(SCRIPTS).map((s) => s.load(store.#client)));
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
    store.#ownedClient = client;
    return store;
  }

  async deductBalance(clientId: string, amount: number, record?: TransactionRecord): Promise<number | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 0);
    if (record !== undefined) assertDeductionRecord(record, clientId, amount);
    const reply = record !== undefined && this.#record
      ? await this.#run(SCRIPTS.deduct, [this.#clientKey(clientId), this.#logKey(clientId)], [String(amount), this.#ttl, ...recordFields(record)])
      : await this.#run(SCRIPTS.deduct, [this.#clientKey(clientId)], [String(amount)]);
    return reply === null ? null : toSafeInteger(reply, 'balance');
  }

  async addBalance(clientId: string, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 1);
    const reply = await this.#run(SCRIPTS.add, [this.#clientKey(clientId)], [String(amount), new Date().toISOString()]);
    return toSafeInteger(reply, 'balance');
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    await this.#run(SCRIPTS.ensure, [this.#clientKey(clientId)], [new Date().toISOString()]);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    const reply = await this.#client.sendCommand(['HMGET', this.#clientKey(clientId), 'balance', 'top_ups', 'created_at']);
    const [balance, topUps, createdAt] = asArray(reply, 'HMGET');
    if (balance === null || balance === undefined) return null;
    return {
      balance: toSafeInteger(balance, 'balance'),
      topUps: toSafeInteger(topUps, 'top_ups'),
      createdAt: toText(createdAt, 'created_at'),
    };
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    const { clientId, amount, paymentIntentId } = credit;
    const reply = await this.#run(
      SCRIPTS.creditTopUp,
      [this.#clientKey(clientId), this.#creditedKey(paymentIntentId), this.#logKey(clientId), this.#reversalsKey(paymentIntentId)],
      [String(amount), new Date().toISOString(), this.#ttl, this.#record ? '1' : '0', randomUUID(), paymentIntentId, clientId],
    );
    const [credited, balance] = asArray(reply, 'creditTopUp');
    return { credited: toText(credited, 'credited') === '1', balance: toSafeInteger(balance, 'balance') };
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(paymentIntentId, 'paymentIntentId');
    return (await this.#client.sendCommand(['EXISTS', this.#creditedKey(paymentIntentId)])) === 1;
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    const { paymentIntentId, key, amount } = reversal;
    const reply = await this.#run(
      SCRIPTS.reverseTopUp,
      [this.#reversalsKey(paymentIntentId), this.#creditedKey(paymentIntentId)],
      [key, String(amount), this.#ttl, this.#prefix],
    );
    const [changed, taken, clientId, balance] = asArray(reply, 'reverseTopUp').map((value) => toText(value, 'reverseTopUp'));
    return {
      changed: changed === '1',
      taken: toSafeInteger(taken, 'taken'),
      clientId: clientId || null,
      balance: balance ? toSafeInteger(balance, 'balance') : null,
    };
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    return (await this.#client.sendCommand(['EXISTS', `${this.#prefix}event:${eventId}`])) === 1;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    await this.#client.sendCommand(['SET', `${this.#prefix}event:${eventId}`, '1', 'EX', this.#eventTtl]);
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | null> {
    this.#assertOpen();
    assertLockRequest(name, ttlMs);
    const token = randomUUID();
    const reply = await this.#client.sendCommand(['SET', this.#lockKey(name), token, 'NX', 'PX', String(ttlMs)]);
    return reply === null ? null : token;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(name, 'name');
    assertNonEmptyString(token, 'token');
    return (await this.#run(SCRIPTS.releaseLock, [this.#lockKey(name)], [token])) === 1;
  }

  /** Closes the client when the store created it ({@link RedisStore.connect} without `client`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const owned = this.#ownedClient;
    this.#ownedClient = undefined;
    await owned?.close();
  }

  #clientKey(clientId: string): string {
    return `${this.#prefix}client:${clientId}`;
  }

  #logKey(clientId: string): string {
    return `${this.#prefix}transactions:${clientId}`;
  }

  #creditedKey(paymentIntentId: string): string {
    return `${this.#prefix}credited:${paymentIntentId}`;
  }

  #reversalsKey(paymentIntentId: string): string {
    return `${this.#prefix}reversals:${paymentIntentId}`;
  }

  #lockKey(name: string): string {
    return `${this.#prefix}lock:${name}`;
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
