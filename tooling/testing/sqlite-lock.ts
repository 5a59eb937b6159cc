// Test helpers for SQLite under contention: a write lock held by another process, and a watch on event-loop stalls.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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

/** Holds the write lock of the database at `path` from another process (BEGIN IMMEDIATE) until `release()`. */
export async function holdWriteLock(path: string): Promise<{ release(): Promise<void> }> {
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
