// The SQLite floor's store: better-sqlite3 (WAL, synchronous NORMAL) and one UPDATE … RETURNING per paid request.
import Database from 'better-sqlite3';
import type { FloorBalances } from './balances.ts';

/** Balances in the SQLite file `path` (created), one autocommitted statement per deduction: the naive floor. */
export function sqliteBalances(path: string): FloorBalances {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS balances (client_id TEXT PRIMARY KEY, balance INTEGER NOT NULL) STRICT');
  const deduct = db.prepare<[number, string, number], { balance: number }>(
    'UPDATE balances SET balance = balance - ? WHERE client_id = ? AND balance >= ? RETURNING balance',
  );
  const upsert = db.prepare('INSERT INTO balances (client_id, balance) VALUES (?, ?) ON CONFLICT (client_id) DO UPDATE SET balance = excluded.balance');
  return {
    deduct: (clientId, amount) => deduct.get(amount, clientId, amount)?.balance ?? null,
    fund: async (clientId, balance) => void upsert.run(clientId, balance),
    close: async () => void db.close(),
  };
}
