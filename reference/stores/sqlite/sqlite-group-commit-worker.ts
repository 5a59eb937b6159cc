// Test helper process: deducts 1 unit (with its record) from a client in groups of 64 per turn, appending "ok" to a file per deduction answered, until killed.
import { randomUUID } from 'node:crypto';
import { openSync, writeSync } from 'node:fs';
import { SqliteStore } from './sqlite-store.ts';

const [path, clientId, answersPath] = process.argv.slice(2);
if (path === undefined || clientId === undefined || answersPath === undefined) {
  throw new TypeError('usage: sqlite-group-commit-worker.ts <path> <clientId> <answers file>');
}
const store = new SqliteStore({ path });
// A file, not a pipe: a write never fails with EAGAIN, and what was written survives the kill.
const answers = openSync(answersPath, 'a');
const deduct = async (): Promise<void> => {
  const record = { id: randomUUID(), type: 'deduction' as const, clientId, currency: 'usd', amount: 1, createdAt: new Date().toISOString(), resource: 'GET /x' };
  const result = await store.deductBalance({ clientId, currency: 'usd', amount: 1, record });
  if (result.status === 'deducted') writeSync(answers, 'ok\n');
};
for (;;) await Promise.all(Array.from({ length: 64 }, deduct));
