// The Postgres floor's store: node-postgres (pool of 10, as the PostgresStore) and one UPDATE … RETURNING per paid request.
import pg from 'pg';
import type { FloorBalances } from './balances.ts';

/** Balances in `<schema>.balances` (schema and table created here), one prepared statement per deduction. */
export async function postgresBalances(url: string, schema: string): Promise<FloorBalances> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  const table = `"${schema}".balances`;
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (client_id text PRIMARY KEY, balance bigint NOT NULL)`);
  const text = `UPDATE ${table} SET balance = balance - $1 WHERE client_id = $2 AND balance >= $1 RETURNING balance`;
  return {
    async deduct(clientId, amount) {
      const { rows } = await pool.query<{ balance: string }>({ name: 'floor-deduct', text, values: [amount, clientId] });
      return rows[0] === undefined ? null : Number(rows[0].balance);
    },
    async fund(clientId, balance) {
      await pool.query(`INSERT INTO ${table} (client_id, balance) VALUES ($1, $2) ON CONFLICT (client_id) DO UPDATE SET balance = excluded.balance`, [clientId, balance]);
    },
    close: () => pool.end(),
  };
}
