// The Postgres store's backend: each operation is one statement on a pooled connection, so one round trip; deductions grouped per turn.
import type { Pool, QueryConfig, QueryResult } from 'pg';
import type {
  ClientRecord, Currency, DeductionRefundResult, DeductionResult, RepeatConfirmation, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult,
  TransactionRecord,
} from '../store.ts';
import { REFUND_ID_TTL_MS } from '../store.ts';
import type { PostgresStore } from './postgres-store.ts';
import type { BackendDeduction, BackendRefund, StoreBackend } from '../store-backend.ts';
import { LateDeductionError } from '../deduction-deadline.ts';
import { DeductionGroups, type DeductionOutcome } from '../deduction-groups.ts';
import { sqlStateOf, storeErrorOf } from './postgres-error.ts';
import { deductBatchParameters, deductParameters, isPerDeductionFailure, isRetryableBatchFailure, lockOrder } from './postgres-deduct-batch.ts';
import {
  oneRow, RAW_TEXT, textOf, toClientRecord, toCreditResult, toDeductionResult, toRefundResult, toReversalResult, toTransaction, integerOf, type Row,
} from './postgres-rows.ts';
import { postgresStatements, type PostgresStatements } from './postgres-statements.ts';
import { quoteIdentifier } from './postgres-schema.ts';
import { LogPruner } from './postgres-retention.ts';
import { pinStoreId } from './postgres-store-id.ts';
import { StoreIdentityError } from '../store-identity.ts';
import { ServerClock } from '../server-clock.ts';

/** How long the client waits for an answer beyond the server's statement timeout before giving the connection up. */
export const NO_ANSWER_MARGIN_MS = 1000;

/** How many times a batch the server rolled back as a deadlock victim is sent again before its deductions fail. */
const BATCH_ATTEMPTS = 3;

/** A parameter as sent: text (integers as their exact decimal digits) or NULL, or an array of those. */
type Parameter = string | null | (string | null)[];

/** A QueryConfig with node-postgres's per-query `query_timeout`, which its types leave out. */
type TimedQuery = QueryConfig<Parameter[]> & { query_timeout: number };

/** How the backend runs statements on `pool`. */
export interface PostgresBackendSettings {
  schema: string;
  /** The server's `statement_timeout` of the store's connections, in ms (for messages). */
  statementTimeoutMs: number;
  /** How long the client waits for an answer, in ms (`query_timeout`). */
  answerTimeoutMs: number;
  /** End `pool` in {@link PostgresBackend.close}: true when the store opened it. */
  ownsPool: boolean;
  /** How long log records are kept, in ms; undefined when the store keeps no log. */
  transactionTtlMs: number | undefined;
}

/** The backend of {@link PostgresStore}: see there for the schema, the functions and the round trips. */
export class PostgresBackend implements StoreBackend {
  readonly #pool: Pool;
  readonly #sql: PostgresStatements;
  readonly #settings: PostgresBackendSettings;
  readonly #pruner: LogPruner | undefined;
  readonly #groups: DeductionGroups;
  /** The server's clock, in which deductions and refunds carry their deadline (`within_deadline`, schema version 7). */
  readonly #clock: ServerClock;
  /** Batches sent and not yet answered: {@link close} waits for them. */
  readonly #sending = new Set<Promise<unknown>>();

  /** Runs the store's statements on `pool`, whose schema is migrated already. */
  constructor(pool: Pool, settings: PostgresBackendSettings) {
    this.#pool = pool;
    this.#settings = settings;
    this.#sql = postgresStatements(quoteIdentifier(settings.schema));
    const ttlMs = settings.transactionTtlMs;
    this.#pruner = ttlMs === undefined ? undefined : new LogPruner((limit, before) => this.#query(this.#sql.pruneLog, [String(limit), before]), ttlMs);
    this.#groups = new DeductionGroups({ commit: (deductions) => this.#tracked(this.#deductBatch(deductions)) }, 'PostgresStore');
    this.#clock = new ServerClock(async () => {
      const now = integerOf(oneRow(await this.#query(this.#sql.clock, []), 'now_ms'), 'now_ms');
      return now - performance.now();
    });
  }

  /** Measures the server's clock: {@link PostgresStore.connect} does it before serving (a failure is retried at the first deadline). */
  async measureClock(): Promise<void> {
    await this.#clock.ready();
  }

  /**
   * Joins this event-loop turn's group (deduction-groups.ts): the turn's deductions go in one `deduct_batch`
   * statement, so one commit, and each settles once that statement answered (a lone deduction calls `deduct`).
   */
  deductBalance(deduction: BackendDeduction): Promise<DeductionResult> {
    return this.#groups.deduct(deduction);
  }

  /**
   * Once per refund id, unless the kept request id's repeat was answered first (`refund_deduction_unless_repeated`,
   * schema version 8); with a deadline, a budget as a deduction's, and late is `ERR_STORE_LATE`.
   */
  async refundDeduction(refund: BackendRefund): Promise<DeductionRefundResult> {
    const { clientId, currency, amount, recordId, requestId, refundId } = refund;
    try {
      const offset = await this.#clock.offsetFor([refund]);
      const result = await this.#query(this.#sql.refund, () => [
        clientId, currency, String(amount), recordId ?? null, requestId ?? null, refundId, String(REFUND_ID_TTL_MS), this.#deadlineOf([refund], offset),
      ]);
      return toRefundResult(oneRow(result, 'refund_deduction_unless_repeated'));
    } catch (error) {
      throw error instanceof LateDeductionError ? new LateDeductionError('PostgresStore', 'refund') : error;
    }
  }

  /**
   * Read at every call (one round trip on the charge path), never cached: a `store` table emptied (or a schema
   * recreated) while the store is open is seen at the next call, which pins a fresh id into an empty table (CR-14.13).
   */
  async getStoreId(): Promise<string> {
    const [row] = (await this.#query(this.#sql.storeId, [])).rows;
    if (row !== undefined) return textOf(row, 'id');
    return pinStoreId(this.#pool, this.#sql, this.#settings.schema, this.#settings.statementTimeoutMs);
  }

  /**
   * Commits `deductions` in one statement, in {@link lockOrder}. A batch the server rolled back as a deadlock
   * victim is sent again (nothing of it was applied); one it rolled back for a data error is run one deduction at a
   * time, in the order asked, so that only the faulty one fails. Any other failure fails every deduction of it.
   */
  async #deductBatch(deductions: readonly BackendDeduction[]): Promise<DeductionOutcome[]> {
    if (deductions.length === 1) return [await outcomeOf(this.#deductOne(deductions[0] as BackendDeduction))];
    const offset = await this.#clock.offsetFor(deductions);
    const order = lockOrder(deductions);
    const sent = order.map((i) => deductions[i] as BackendDeduction);
    let result: QueryResult<Row> | undefined;
    for (let attempt = 1; result === undefined; attempt++) {
      try {
        result = await this.#query(this.#sql.deductBatch, () => [...deductBatchParameters(sent), this.#deadlineOf(sent, offset)]);
      } catch (error) {
        if (isRetryableBatchFailure(error) && attempt < BATCH_ATTEMPTS) continue;
        if (isPerDeductionFailure(error)) return this.#deductOneByOne(deductions);
        throw error;
      }
    }
    if (result.rows.length !== sent.length) throw new TypeError(`PostgresStore: deduct_batch answered ${result.rows.length} rows for ${sent.length} deductions`);
    const outcomes: DeductionOutcome[] = new Array(deductions.length);
    result.rows.forEach((row, position) => {
      if (integerOf(row, 'ord') !== position + 1) throw new TypeError('PostgresStore: deduct_batch answered its rows out of order');
      outcomes[order[position] as number] = toOutcome(() => toDeductionResult(row));
      if (sent[position]?.record !== undefined) this.#pruner?.appended();
    });
    return outcomes;
  }

  /** `batch`, kept in {@link #sending} until it settles. */
  #tracked<T>(batch: Promise<T>): Promise<T> {
    this.#sending.add(batch);
    const settled = (): void => {
      this.#sending.delete(batch);
    };
    batch.then(settled, settled);
    return batch;
  }

  /** Each deduction alone, in the order asked (two of one client stay sequential). */
  async #deductOneByOne(deductions: readonly BackendDeduction[]): Promise<DeductionOutcome[]> {
    const outcomes: DeductionOutcome[] = [];
    for (const deduction of deductions) outcomes.push(await outcomeOf(this.#deductOne(deduction)));
    return outcomes;
  }

  /** One deduction in its own statement (`deduct`). */
  async #deductOne(deduction: BackendDeduction): Promise<DeductionResult> {
    const offset = await this.#clock.offsetFor([deduction]);
    const result = await this.#query(this.#sql.deduct, () => [...deductParameters(deduction), this.#deadlineOf([deduction], offset)]);
    if (deduction.record !== undefined) this.#pruner?.appended();
    return toDeductionResult(oneRow(result, 'deduct_claiming'));
  }

  async confirmRepeat({ clientId, requestId, claimId }: RepeatConfirmation): Promise<void> {
    await this.#query(this.#sql.confirmRepeat, [clientId, requestId, claimId]);
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    return integerOf(oneRow(await this.#query(this.#sql.add, [clientId, currency, String(amount)]), 'add_balance'), 'new_balance');
  }

  async ensureClient(clientId: string): Promise<void> {
    await this.#query(this.#sql.ensure, [clientId]);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    return toClientRecord((await this.#query(this.#sql.client, [clientId])).rows);
  }

  /** With `storeId`, one statement that checks the `store` table and credits (`creditChecked`): no row back means refused. */
  async creditTopUp({ clientId, currency, amount, paymentIntentId, storeId }: TopUpCredit, recordId: string | undefined): Promise<TopUpCreditResult> {
    const values = [paymentIntentId, clientId, currency, String(amount), recordId ?? null];
    const result = storeId === undefined
      ? await this.#query(this.#sql.credit, values)
      : await this.#query(this.#sql.creditChecked, [...values, storeId]);
    if (storeId !== undefined && result.rows.length === 0) throw new StoreIdentityError('PostgresStore', storeId);
    if (recordId !== undefined) this.#pruner?.appended();
    return toCreditResult(oneRow(result, 'credit_top_up'));
  }

  async recordTransaction(record: TransactionRecord): Promise<void> {
    const { id, type, clientId, currency, amount, createdAt, paymentIntentId, resource } = record;
    await this.#query(this.#sql.append, [id, type, clientId, currency, String(amount), createdAt, paymentIntentId ?? null, resource ?? null]);
    this.#pruner?.appended();
  }

  async listTransactions(clientId: string): Promise<TransactionRecord[]> {
    return (await this.#query(this.#sql.list, [clientId])).rows.map(toTransaction);
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    return (await this.#query(this.#sql.credited, [paymentIntentId])).rows.length > 0;
  }

  async reverseTopUp({ paymentIntentId, key, amount }: TopUpReversal): Promise<TopUpReversalResult> {
    return toReversalResult(oneRow(await this.#query(this.#sql.reverse, [paymentIntentId, key, String(amount)]), 'reverse_top_up'));
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    return (await this.#query(this.#sql.eventSeen, [eventId])).rows.length > 0;
  }

  async markEventProcessed(eventId: string): Promise<void> {
    await this.#query(this.#sql.markEvent, [eventId]);
  }

  async acquireLock(name: string, ttlMs: number, token: string): Promise<string | null> {
    const [row] = (await this.#query(this.#sql.acquire, [name, token, String(ttlMs)])).rows;
    return row === undefined ? null : textOf(row, 'token');
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    return (await this.#query(this.#sql.release, [name, token])).rows.length > 0;
  }

  /**
   * Sends the deductions queued this turn and waits for every batch's answer and a running prune, then ends the
   * pool when the store opened it; a caller's pool stays open.
   */
  async close(): Promise<void> {
    this.#clock.stop();
    this.#groups.flush(); // deductions already asked for are sent (and answered), not dropped
    await Promise.allSettled([...this.#sending]);
    await this.#pruner?.settled();
    if (this.#settings.ownsPool) await this.#pool.end();
  }

  /**
   * Runs one statement on a pooled connection: one round trip (an idle connection is handed out without one).
   * Columns come back as text ({@link RAW_TEXT}). A connection that failed, or whose answer did not come within
   * `answerTimeoutMs`, is dropped from the pool; one that answered with an error (a server-side failure) is reused.
   * `values` may be made once the connection is there (a deduction's budget: the pool's wait counts against it), and
   * may throw (a deduction already late), which sends nothing.
   */
  async #query(text: string, values: Parameter[] | (() => Parameter[])): Promise<QueryResult<Row>> {
    const client = await this.#pool.connect();
    let parameters: Parameter[];
    try {
      parameters = typeof values === 'function' ? values() : values;
    } catch (error) {
      client.release(); // nothing was sent: the connection is as good as before
      throw error;
    }
    let broken: Error | undefined;
    const onError = (error: Error): void => {
      broken = error;
    };
    client.on('error', onError);
    try {
      const config: TimedQuery = { text, values: parameters, types: RAW_TEXT, query_timeout: this.#settings.answerTimeoutMs };
      return await client.query<Row>(config);
    } catch (error) {
      if (sqlStateOf(error) === undefined) broken ??= error instanceof Error ? error : new Error(String(error));
      throw storeErrorOf(error, this.#settings.statementTimeoutMs);
    } finally {
      client.off('error', onError);
      client.release(broken ?? false);
    }
  }


  /**
   * The deadline, in ms since the epoch on the server's clock (as text), of a statement for `calls`: the earliest
   * caller's deadline less the margin of a store on another host (deduction-deadline.ts, server-clock.ts), checked by
   * the server when the statement's function has run (`within_deadline`); null when none has one. Throws a
   * {@link LateDeductionError}, so that nothing is sent, when it has already passed here: the pool's wait used it up.
   */
  #deadlineOf(calls: readonly Pick<BackendDeduction, 'notAfter' | 'timeoutMs'>[], offset: number): string | null {
    let deadline = Number.POSITIVE_INFINITY;
    const now = performance.now();
    for (const call of calls) {
      const onServer = this.#clock.deadlineOf(call, offset);
      if (onServer === undefined) continue;
      if (onServer - offset - now < 1) throw new LateDeductionError('PostgresStore');
      deadline = Math.min(deadline, onServer);
    }
    return deadline === Number.POSITIVE_INFINITY ? null : String(deadline);
  }
}

/** The outcome of one deduction: its result, or the error that failed it. */
function outcomeOf(deduction: Promise<DeductionResult>): Promise<DeductionOutcome> {
  return deduction.then((result) => ({ ok: true, result }), (error: unknown) => ({ ok: false, error }));
}

/** `read()`'s result as an outcome, or the error it threw (an unreadable row fails its deduction alone). */
function toOutcome(read: () => DeductionResult): DeductionOutcome {
  try {
    return { ok: true, result: read() };
  } catch (error) {
    return { ok: false, error };
  }
}
