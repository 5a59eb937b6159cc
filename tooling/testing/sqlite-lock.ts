// Test helpers for SQLite under contention: a write lock held by another process, and a watch on event-loop stalls.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach } from 'vitest';
import { REPO_ROOT } from './kit.ts';

/** Samples the event loop every 5 ms until `stop()`, which resolves the longest stall seen, in ms. */
export function watchEventLoop(): { stop(): number } {
  let last = Date.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(worst, Date.now() - last - 5);
    },
  };
}

/** A write lock held by another process: `release()` gives it back (a second call does nothing). */
export interface WriteLockHolder {
  release(): Promise<void>;
}

/** Holds the write lock of the database at `path` from another process (BEGIN IMMEDIATE) until `release()`. */
export async function holdWriteLock(path: string): Promise<WriteLockHolder> {
  const code = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', code, path], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = (await lines.next()).value;
  if (first !== 'locked') throw new Error(`the lock holder did not take the lock: ${String(first)}`);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      child.stdin.write('release\n');
      await exited;
    },
  };
}

/**
 * For the tests of one describe block (call it there): the write locks they hold and what they open (stores,
 * servers). After each test the locks are released first, then what was opened is closed, in order.
 */
export function writeLockScope(): { hold(path: string): Promise<WriteLockHolder>; open<T extends { close(): Promise<void> }>(opened: T): T } {
  const holders: WriteLockHolder[] = [];
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const holder of holders.splice(0)) await holder.release();
    for (const item of opened.splice(0)) await item.close();
  });
  return {
    async hold(path) {
      const holder = await holdWriteLock(path);
      holders.push(holder);
      return holder;
    },
    open(item) {
      opened.push(item);
      return item;
    },
  };
}
