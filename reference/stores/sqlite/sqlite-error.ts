// The SQLite store's own failures, and how it tells SQLite's error codes apart.

/** A failure of the SQLite store itself (not of one statement); `code` says which. */
export class SqliteStoreError extends Error {
  constructor(
    readonly code: 'ERR_SQLITE_BUSY' | 'ERR_SQLITE_NOT_WRITABLE' | 'ERR_SQLITE_FILE_LOST',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SqliteStoreError';
  }
}

/** True when `error` has a string `code` starting with `prefix` (SQLite's extended codes share the prefix). */
export function hasSqliteCode(error: unknown, prefix: string): boolean {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && code.startsWith(prefix);
}

/** True when SQLite answered "busy": another connection holds the write lock, and nothing changed. */
export function isSqliteBusy(error: unknown): boolean {
  return hasSqliteCode(error, 'SQLITE_BUSY');
}
