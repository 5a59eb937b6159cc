// The Postgres store's own failures, and how it tells the server's error codes apart.
import { LateDeductionError } from '../deduction-deadline.ts';
import { LATE_SQLSTATE } from './postgres-version3.ts';
import { reasonOf } from '../store-errors.ts';

/** A failure of the Postgres store itself (not of one argument); `code` says which. */
export class PostgresStoreError extends Error {
  constructor(
    /**
     * `ERR_PG_CONNECT`: no connection at connect; `ERR_PG_SCHEMA`: the schema could not be created or migrated;
     * `ERR_PG_TIMEOUT`: the server cancelled a statement at `statementTimeoutMs`, nothing changed;
     * `ERR_PG_NO_ANSWER`: the client stopped waiting for an answer, the outcome is unknown.
     */
    readonly code: 'ERR_PG_CONNECT' | 'ERR_PG_SCHEMA' | 'ERR_PG_TIMEOUT' | 'ERR_PG_NO_ANSWER',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PostgresStoreError';
  }
}

/** SQLSTATE the store's functions raise when a balance would pass Number.MAX_SAFE_INTEGER (numeric_value_out_of_range). */
export const OVERFLOW_SQLSTATE = '22003';
/** SQLSTATE of a statement cancelled by `statement_timeout` (query_canceled). */
const CANCELED_SQLSTATE = '57014';

/** The SQLSTATE of an error the server reported, or undefined for any other error (connection, client). */
export function sqlStateOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code: unknown = Reflect.get(error, 'code');
  const severity: unknown = Reflect.get(error, 'severity');
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string' ? code : undefined;
}

/**
 * The error a store call rejects with for `error`: a RangeError for an overflow its functions raised, a
 * {@link PostgresStoreError} for a statement timeout or a lost answer, else `error` itself.
 */
export function storeErrorOf(error: unknown, statementTimeoutMs: number): unknown {
  const state = sqlStateOf(error);
  if (state === OVERFLOW_SQLSTATE) return new RangeError(reasonOf(error), { cause: error });
  if (state === LATE_SQLSTATE) return new LateDeductionError('PostgresStore');
  if (state === CANCELED_SQLSTATE) {
    return new PostgresStoreError('ERR_PG_TIMEOUT', `PostgresStore: the statement was cancelled after statementTimeoutMs (${statementTimeoutMs} ms); nothing was changed`, { cause: error });
  }
  if (error instanceof Error && error.message === 'Query read timeout') {
    return new PostgresStoreError('ERR_PG_NO_ANSWER', 'PostgresStore: no answer from the server in time; the outcome is unknown', { cause: error });
  }
  return error;
}
