// Test helper process: opens a SqliteStore, waits for "go" on stdin, deducts 1 unit N times, prints its successes.
import { createInterface } from 'node:readline';
import { SqliteStore } from './sqlite-store.ts';

const [path, clientId, count, currency = 'usd'] = process.argv.slice(2);
if (path === undefined || clientId === undefined || count === undefined) {
  throw new TypeError('usage: sqlite-deduct-worker.ts <path> <clientId> <count> [currency]');
}
// Opening may migrate the tables: workers started together on an old file also test that migration is safe.
const store = new SqliteStore({ path, busyTimeoutMs: 10_000 });
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line !== 'go') continue;
  let successes = 0;
  for (let i = 0; i < Number(count); i++) {
    if ((await store.deductBalance({ clientId, currency, amount: 1 })).status === 'deducted') successes++;
  }
  await store.close();
  process.stdout.write(`${successes}\n`);
  lines.close();
}
