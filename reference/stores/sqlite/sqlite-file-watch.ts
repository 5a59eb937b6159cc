// The SQLite store's check that its database file is still the one it opened, and the rescue copy when it is not.
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteStoreError } from './sqlite-error.ts';
import { reasonOf } from '../store-errors.ts';

/**
 * Watches the file at `path` (device and inode as opened) every `intervalMs`, and before a call whose last check
 * is older. Once the file was deleted or replaced, it copies what the connection still has open next to it,
 * calls `onLost` once, and {@link assertFile} throws `ERR_SQLITE_FILE_LOST` from then on.
 */
export class SqliteFileWatch {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #dev: number;
  readonly #ino: number;
  readonly #intervalMs: number;
  readonly #onLost: (error: SqliteStoreError) => void;
  readonly #timer: ReturnType<typeof setInterval>;
  #checkedAt = Date.now();
  #lost: SqliteStoreError | undefined;
  #stopped = false;

  /** Starts watching; `onLost` defaults to a loud message on console.error. */
  constructor(db: Database.Database, path: string, intervalMs: number, onLost: ((error: SqliteStoreError) => void) | undefined) {
    this.#db = db;
    this.#path = resolve(path);
    const { dev, ino } = statSync(this.#path);
    this.#dev = dev;
    this.#ino = ino;
    this.#intervalMs = intervalMs;
    this.#onLost = onLost ?? ((error) => console.error(`credit402: ${error.message}`));
    this.#timer = setInterval(() => this.#check(), intervalMs);
    this.#timer.unref();
  }

  /** Throws once the file was lost; checks it again first when the last check is older than the interval, or when `now`. */
  assertFile(now = false): void {
    if (now || Date.now() - this.#checkedAt >= this.#intervalMs) this.#check();
    if (this.#lost !== undefined) throw this.#lost;
  }

  /** Stops watching (the store closes). */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  #check(): void {
    if (this.#lost !== undefined || this.#stopped) return;
    this.#checkedAt = Date.now();
    let now: ReturnType<typeof statSync>;
    try {
      now = statSync(this.#path, { throwIfNoEntry: false });
    } catch {
      return; // cannot tell (e.g. a permission changed): not a proof that the file is gone
    }
    if (now !== undefined && now.dev === this.#dev && now.ino === this.#ino) return;
    const what = now === undefined ? 'was deleted' : `was replaced (inode ${this.#ino} is now ${now.ino})`;
    const saved = this.#rescue();
    this.#lost = new SqliteStoreError(
      'ERR_SQLITE_FILE_LOST',
      `SqliteStore: the database file ${this.#path} ${what} while the store had it open. Every store call now fails ` +
        `(paid requests are answered 503): writes would go to a file no restart opens again. ${saved}`,
    );
    clearInterval(this.#timer);
    this.#onLost(this.#lost);
  }

  /**
   * Copies the database this connection still has open (the lost file, with its WAL) next to the path, so that no
   * balance is lost; says where it went, or where the open files are when the copy failed.
   */
  #rescue(): string {
    const path = this.#path;
    const copy = `${path}.lost-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      this.#db.prepare('VACUUM INTO ?').run(copy);
      return `A copy of the database as this process had it was written to ${copy}: restart on the right file (that copy, or what is at ${path} now).`;
    } catch (error) {
      const held = openDescriptors(path);
      return `Copying it to ${copy} failed (${reasonOf(error)}); the balances so far are only in the ` +
        `files this process still holds open (${held.length > 0 ? held.join(', ') : `see /proc/${process.pid}/fd`}): copy them before stopping it.`;
    }
  }
}

/** Where this process still holds `path` and its WAL open after they were deleted or replaced (Linux: /proc/self/fd). */
function openDescriptors(path: string): string[] {
  const held: string[] = [];
  try {
    for (const fd of readdirSync('/proc/self/fd')) {
      const target = readlinkSync(`/proc/self/fd/${fd}`).replace(/ \(deleted\)$/, '');
      if (target === path || target === `${path}-wal`) held.push(`/proc/${process.pid}/fd/${fd} (${target.endsWith('-wal') ? 'its WAL' : 'the database'})`);
    }
  } catch {
    // not Linux, or no /proc
  }
  return held;
}
