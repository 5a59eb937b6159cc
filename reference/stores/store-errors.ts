// What the SQLite, Postgres and Redis stores share of their errors: the one error of an invalid option, and a thrown value's message.

/** The code of a {@link StoreOptionError}, by the store whose option it is. */
const OPTION_CODES = { SqliteStore: 'ERR_SQLITE_OPTION', PostgresStore: 'ERR_PG_OPTION', RedisStore: 'ERR_REDIS_OPTION' } as const;

/** A store whose options raise a {@link StoreOptionError}. */
export type OptionStore = keyof typeof OPTION_CODES;

/** `ERR_SQLITE_OPTION`, `ERR_PG_OPTION` or `ERR_REDIS_OPTION`: the code of a {@link StoreOptionError}. */
export type StoreOptionCode = (typeof OPTION_CODES)[OptionStore];

/**
 * An invalid numeric option of a store, thrown before it opens a file or a connection: a RangeError whose `code`
 * names the store (`ERR_SQLITE_OPTION`, `ERR_PG_OPTION`, `ERR_REDIS_OPTION`) and whose message starts with its name.
 */
export class StoreOptionError extends RangeError {
  readonly code: StoreOptionCode;

  constructor(store: OptionStore, message: string) {
    super(`${store}: ${message}`);
    this.name = 'StoreOptionError';
    this.code = OPTION_CODES[store];
  }
}

/**
 * The option `name` of `store` in seconds, `fallback` when undefined; a {@link StoreOptionError} unless a positive
 * safe integer whose milliseconds are safe too.
 */
export function positiveSeconds(store: OptionStore, name: string, value: unknown, fallback: number): number {
  const seconds = value ?? fallback;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 1 || !Number.isSafeInteger(seconds * 1000)) {
    throw new StoreOptionError(store, `${name} must be a positive safe integer (seconds), got ${String(value)}`);
  }
  return seconds;
}

/** The message of `error`, whatever was thrown. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
