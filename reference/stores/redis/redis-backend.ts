// The Redis store's backend: keys and arguments of each operation, run as one Lua script or one command (on one server, a turn's deductions as one script; on a cluster, top-ups and reversals as two: redis-cluster-topups.ts).
import { randomUUID } from 'node:crypto';
import type {
  ClientRecord, Currency, DeductionRefundResult, DeductionResult, RepeatConfirmation, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult,
  TransactionRecord,
} from '../store.ts';
import { REFUND_ID_TTL_MS } from '../store.ts';
import type { RedisStore } from './redis-store.ts';
import type { BackendDeduction, BackendRefund, StoreBackend } from '../store-backend.ts';
import { redisClock } from './redis-clock.ts';
import type { ServerClock } from '../server-clock.ts';
import { DeductionGroups, type DeductionOutcome } from '../deduction-groups.ts';
import { batchCall, toDeductionOutcomes } from './redis-deduct-batch.ts';
import { CONFIRM_REPEAT, DEDUCT, DEDUCT_BATCH } from './redis-deduct-scripts.ts';
import { ClusterKeys, RedisKeys } from './redis-keys.ts';
import { LuaScript, type RedisConnection } from './redis-lua.ts';
import { CLUSTER_SCRIPTS, ClusterTopUps } from './redis-cluster-topups.ts';
import type { RedisSettings } from './redis-options.ts';
import { StoreIdentityError } from '../store-identity.ts';
import {
  ADD, CREDIT_TOP_UP, ENSURE, GET_CLIENT, PIN_ONCE, RECORD_TRANSACTION, REFUND_DEDUCTION, RELEASE_LOCK, REVERSE_TOP_UP,
} from './redis-scripts.ts';
import {
  asArray, recordFields, toClientRecord, toCurrency, toDeductionResult, toRefundResult, toReversalResult, toSafeInteger, toText,
  toTransaction,
} from './redis-replies.ts';

const SCRIPTS = {
  deduct: new LuaScript(DEDUCT),
  deductBatch: new LuaScript(DEDUCT_BATCH),
  confirmRepeat: new LuaScript(CONFIRM_REPEAT),
  add: new LuaScript(ADD),
  ensure: new LuaScript(ENSURE),
  getClient: new LuaScript(GET_CLIENT),
  creditTopUp: new LuaScript(CREDIT_TOP_UP),
  recordTransaction: new LuaScript(RECORD_TRANSACTION),
  reverseTopUp: new LuaScript(REVERSE_TOP_UP),
  pinOnce: new LuaScript(PIN_ONCE),
  refundDeduction: new LuaScript(REFUND_DEDUCTION),
  releaseLock: new LuaScript(RELEASE_LOCK),
};

/** Loads every script the store runs on `connection` into the script cache of the server or of every master (SCRIPT LOAD). */
export async function loadRedisScripts(connection: RedisConnection): Promise<void> {
  // A cluster runs its own top-up and reversal scripts: those of one server touch a client and a PaymentIntent at once.
  const oneServerOnly: readonly LuaScript[] = [SCRIPTS.creditTopUp, SCRIPTS.reverseTopUp, SCRIPTS.deductBatch];
  const scripts = connection.cluster
    ? [...Object.values(SCRIPTS).filter((script) => !oneServerOnly.includes(script)), ...Object.values(CLUSTER_SCRIPTS)]
    : Object.values(SCRIPTS);
  await Promise.all(scripts.map((script) => connection.loadScript(script.source)));
}

/**
 * The backend of {@link RedisStore}: see there for the keys, their lifetimes and the legacy currency. On a cluster
 * the keys are {@link ClusterKeys}, and creditTopUp, reverseTopUp and hasCredit are {@link ClusterTopUps}.
 *
 * On one server the deductions asked in one event-loop turn run as one DEDUCT_BATCH script, in order (see
 * {@link DeductionGroups}, and redis-deduct-scripts.ts for why none is applied without its answer). Every other
 * operation first sends the queued deductions, so that it runs after them, as it would without the grouping. On a
 * cluster, whose deductions of different clients live in different slots, each deduction is one DEDUCT.
 */
export class RedisBackend implements StoreBackend {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #clusterTopUps: ClusterTopUps | undefined;
  readonly #groups: DeductionGroups | undefined;
  readonly #ttl: string;
  /** append_log's '<ttl seconds>:<max entries>' for every log entry (redis-prelude.ts). */
  readonly #logPolicy: string;
  readonly #eventTtl: string;
  readonly #configuredLegacy: Currency;
  #legacy: Promise<Currency> | undefined;
  /** The pinned legacy currency once read, so that a batch is sent at its flush, before a later operation's command. */
  #pinnedLegacy: Currency | undefined;
  #ownedClient: { close(): Promise<void> } | undefined;
  readonly #clock: ServerClock;

  /** Uses `connection` with validated `settings`. */
  constructor(connection: RedisConnection, settings: RedisSettings) {
    this.#connection = connection;
    this.#ttl = String(settings.ttlSeconds);
    this.#logPolicy = `${settings.logTtlSeconds}:${settings.maxLogEntries}`;
    this.#eventTtl = String(settings.eventTtlSeconds);
    this.#configuredLegacy = settings.legacyCurrency;
    this.#clock = redisClock(connection);
    // Measured at once, so that the first deduction with a deadline finds the offset (a failure is retried at its use).
    this.#clock.ready().catch(() => {});
    if (connection.cluster) {
      const keys = new ClusterKeys(settings.prefix);
      this.#keys = keys;
      this.#clusterTopUps = new ClusterTopUps({
        keys,
        ttl: this.#ttl,
        logPolicy: this.#logPolicy,
        connection,
        legacyCurrency: () => this.legacyCurrency(),
        run: (script, scriptKeys, args) => this.#run(script, scriptKeys, args),
      });
    } else {
      this.#keys = new RedisKeys(settings.prefix);
      this.#groups = new DeductionGroups({ commit: (deductions) => this.#deductBatch(deductions) }, 'RedisStore');
    }
  }

  /** Makes {@link close} close `client`, which the store created. */
  own(client: { close(): Promise<void> }): void {
    this.#ownedClient = client;
  }

  /** A deduction with a deadline carries it in the server's clock: the script refuses it once passed (redis-clock.ts). */
  deductBalance(deduction: BackendDeduction): Promise<DeductionResult> {
    return this.#groups ? this.#groups.deduct(deduction) : this.#deductOne(deduction);
  }

  async confirmRepeat({ clientId, requestId, claimId }: RepeatConfirmation): Promise<void> {
    await this.#run(SCRIPTS.confirmRepeat, [this.#keys.request(clientId, requestId)], [claimId]);
  }

  /** One deduction as one DEDUCT (on a cluster). */
  async #deductOne(deduction: BackendDeduction): Promise<DeductionResult> {
    const { clientId, currency, amount, record, request } = deduction;
    const known = this.#clock.offsetFor([deduction]);
    const offset = typeof known === 'number' ? known : await known;
    const keys = [this.#keys.client(clientId), this.#keys.log(clientId)];
    const args = [currency, String(amount), await this.legacyCurrency(), record !== undefined ? this.#logPolicy : ''];
    if (request !== undefined) {
      keys.push(this.#keys.request(clientId, request.id));
      args.push(String(request.ttlMs), request.fingerprint, request.claim?.id ?? '', request.claim !== undefined ? String(request.claim.leaseMs) : '');
    } else {
      args.push('', '', '', '');
    }
    args.push(this.#deadline(deduction, offset));
    if (record !== undefined) args.push(...recordFields(record));
    return toDeductionResult(await this.#run(SCRIPTS.deduct, keys, args));
  }

  /** A turn's deductions as one DEDUCT_BATCH, sent before this returns when the legacy currency and the clock are known. */
  async #deductBatch(deductions: readonly BackendDeduction[]): Promise<DeductionOutcome[]> {
    const legacy = this.#pinnedLegacy ?? (await this.legacyCurrency());
    const known = this.#clock.offsetFor(deductions); // awaited only when unknown: the batch goes out before later operations
    const offset = typeof known === 'number' ? known : await known;
    const { keys, args } = batchCall(this.#keys, deductions, this.#logPolicy, legacy, (deduction) => this.#deadline(deduction, offset));
    return toDeductionOutcomes(await this.#run(SCRIPTS.deductBatch, keys, args), deductions.length);
  }

  /** The server-time deadline of `deduction` (or refund) as the scripts read it: ms as text, '' for none. */
  #deadline(deduction: Pick<BackendDeduction, 'notAfter' | 'timeoutMs'>, offset: number): string {
    const deadline = this.#clock.deadlineOf(deduction, offset);
    return deadline === undefined ? '' : String(deadline);
  }


  /**
   * Once per refund id (kept {@link REFUND_ID_TTL_MS}), unless the kept request id's repeat was answered first
   * (`superseded`, checked in the same script); a refund with a deadline carries it in the server's clock, as a deduction.
   */
  async refundDeduction(refund: BackendRefund): Promise<DeductionRefundResult> {
    const { clientId, currency, amount, recordId, requestId, refundId } = refund;
    const legacy = await this.legacyCurrency();
    const known = this.#clock.offsetFor([refund]);
    const offset = typeof known === 'number' ? known : await known;
    const keys = [this.#keys.client(clientId), this.#keys.log(clientId), this.#keys.refund(clientId, refundId)];
    if (requestId !== undefined) keys.push(this.#keys.request(clientId, requestId));
    const args = [currency, String(amount), new Date().toISOString(), legacy, recordId ?? '', String(REFUND_ID_TTL_MS), this.#deadline(refund, offset)];
    return toRefundResult(await this.#run(SCRIPTS.refundDeduction, keys, args));
  }

  /**
   * The prefix's store id (`<prefix>store-id`): pinned to a random one by the first store that asks, read back by
   * every other. Asked at every call, never cached: a prefix flushed (or a server restarted without persistence) while
   * the store is open gets a fresh id from the next call, so that the next charge's key is new (CR-14.13).
   */
  async getStoreId(): Promise<string> {
    const key = this.#keys.storeId();
    return toText(await this.#run(SCRIPTS.pinOnce, [key], [randomUUID()]), key);
  }

  /** Pins (or reads) the legacy currency and the store id, and measures the server's clock: {@link RedisStore.connect} does it before serving. */
  async readPinned(): Promise<void> {
    await Promise.all([this.legacyCurrency(), this.getStoreId(), this.#clock.ready()]);
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    const legacy = await this.legacyCurrency();
    const reply = await this.#run(SCRIPTS.add, [this.#keys.client(clientId)], [currency, String(amount), new Date().toISOString(), legacy]);
    return toSafeInteger(reply, 'balance');
  }

  async ensureClient(clientId: string): Promise<void> {
    const legacy = await this.legacyCurrency();
    await this.#run(SCRIPTS.ensure, [this.#keys.client(clientId)], [new Date().toISOString(), legacy]);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    const legacy = await this.legacyCurrency();
    return toClientRecord(await this.#run(SCRIPTS.getClient, [this.#keys.client(clientId)], [legacy]));
  }

  /** With `storeId`, the script checks the store id key in the same step (on a cluster, a read just before: see ClusterTopUps). */
  async creditTopUp(credit: TopUpCredit, recordId: string | undefined): Promise<TopUpCreditResult> {
    if (this.#clusterTopUps) return this.#clusterTopUps.creditTopUp(credit, recordId);
    const { clientId, currency, amount, paymentIntentId, storeId } = credit;
    const legacy = await this.legacyCurrency();
    const keys = [this.#keys.client(clientId), this.#keys.credited(paymentIntentId), this.#keys.log(clientId), this.#keys.reversals(paymentIntentId), this.#keys.storeId()];
    const args = [currency, String(amount), new Date().toISOString(), this.#ttl, recordId === undefined ? '0' : '1', recordId ?? '', paymentIntentId, clientId, legacy, this.#logPolicy, storeId ?? ''];
    const reply = await this.#run(SCRIPTS.creditTopUp, keys, args).catch((error: unknown) => {
      if (storeId !== undefined && error instanceof Error && error.message.startsWith('CREDIT402_STORE_RESET')) {
        throw new StoreIdentityError('RedisStore', storeId, { cause: error });
      }
      throw error;
    });
    const [credited, balance] = asArray(reply, 'creditTopUp');
    return { credited: toText(credited, 'credited') === '1', balance: toSafeInteger(balance, 'balance') };
  }

  async recordTransaction(record: TransactionRecord): Promise<void> {
    await this.#run(SCRIPTS.recordTransaction, [this.#keys.log(record.clientId)], [this.#logPolicy, ...recordFields(record)]);
  }

  async listTransactions(clientId: string): Promise<TransactionRecord[]> {
    const legacy = await this.legacyCurrency();
    const log = this.#keys.log(clientId);
    this.#groups?.flush();
    const reply = await this.#connection.send(log, ['XRANGE', log, '-', '+']);
    return asArray(reply, 'XRANGE').map((entry) => toTransaction(entry, legacy));
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    if (this.#clusterTopUps) return this.#clusterTopUps.hasCredit(paymentIntentId);
    return (await this.#send(['EXISTS', this.#keys.credited(paymentIntentId)])) === 1;
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    if (this.#clusterTopUps) return this.#clusterTopUps.reverseTopUp(reversal);
    const { paymentIntentId, key, amount } = reversal;
    const legacy = await this.legacyCurrency();
    const reply = await this.#run(
      SCRIPTS.reverseTopUp,
      [this.#keys.reversals(paymentIntentId), this.#keys.credited(paymentIntentId)],
      [key, String(amount), this.#ttl, this.#keys.prefix, legacy],
    );
    return toReversalResult(reply);
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    return (await this.#send(['EXISTS', this.#keys.event(eventId)])) === 1;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    await this.#send(['SET', this.#keys.event(eventId), '1', 'EX', this.#eventTtl]);
  }

  async acquireLock(name: string, ttlMs: number, token: string): Promise<string | null> {
    const reply = await this.#send(['SET', this.#keys.lock(name), token, 'NX', 'PX', String(ttlMs)]);
    return reply === null ? null : token;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    return (await this.#run(SCRIPTS.releaseLock, [this.#keys.lock(name)], [token])) === 1;
  }

  /** Closes the client when the store created it. */
  async close(): Promise<void> {
    this.#groups?.flush(); // deductions already asked for are sent (a closing client still answers them), not dropped
    this.#clock.stop();
    const owned = this.#ownedClient;
    this.#ownedClient = undefined;
    await owned?.close();
  }

  /**
   * The prefix's pinned legacy currency: pinned to `legacyCurrency` by the first store that asks, read back
   * by every other. Asked once per store ({@link RedisStore.connect} asks at once); a failed ask is retried next time.
   */
  legacyCurrency(): Promise<Currency> {
    if (this.#legacy === undefined) {
      const key = this.#keys.legacyCurrency();
      const pending = this.#run(SCRIPTS.pinOnce, [key], [this.#configuredLegacy]).then((reply) => {
        this.#pinnedLegacy = toCurrency(reply, key);
        return this.#pinnedLegacy;
      });
      pending.catch(() => {
        if (this.#legacy === pending) this.#legacy = undefined;
      });
      this.#legacy = pending;
    }
    return this.#legacy;
  }

  /** A command whose only key is its first argument. */
  #send(args: string[]): Promise<unknown> {
    this.#groups?.flush();
    return this.#connection.send(args[1], args);
  }

  /** Runs `script` after sending the queued deductions (a batch's own run finds the queue empty). */
  async #run(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    this.#groups?.flush();
    try {
      return await script.run(this.#connection, keys, args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('CREDIT402_OVERFLOW')) {
        throw new RangeError(error.message.slice('CREDIT402_OVERFLOW '.length), { cause: error });
      }
      throw error;
    }
  }
}
