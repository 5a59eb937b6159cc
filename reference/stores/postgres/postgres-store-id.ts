// The Postgres store's id pinned afresh: when the `store` table was emptied while the store was open, a new random id, written once however many stores ask at once.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { sqlStateOf, storeErrorOf } from './postgres-error.ts';
import { oneRow, RAW_TEXT, textOf, type Row } from './postgres-rows.ts';
import type { PostgresStatements } from './postgres-statements.ts';

/**
 * Writes a fresh random id into the schema `schema`'s empty `store` table and resolves the id the table then holds, in
 * one transaction under an advisory lock on the schema's name: a store that pins at the same time waits, then finds the
 * id written and reads it back, so that all agree on one id. A failure rolls back and rejects as the store's other
 * calls do (`statementTimeoutMs` names the timeout in a cancelled statement's error).
 */
export async function pinStoreId(pool: Pool, sql: PostgresStatements, schema: string, statementTimeoutMs: number): Promise<string> {
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query('BEGIN');
    await client.query({ text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', values: [`credit402:store-id:${schema}`] });
    await client.query({ text: sql.pinStoreId, values: [randomUUID()] });
    const result = await client.query<Row>({ text: sql.storeId, types: RAW_TEXT });
    await client.query('COMMIT');
    return textOf(oneRow(result, 'the store id'), 'id');
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => {});
    throw storeErrorOf(error, statementTimeoutMs);
  } finally {
    // A connection that failed (no SQLSTATE: not an answer of the server) is dropped; one that answered is reused.
    client.release(failure !== undefined && sqlStateOf(failure) === undefined ? toError(failure) : false);
  }
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
