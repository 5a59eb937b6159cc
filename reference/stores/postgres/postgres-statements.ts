// SQL text of every Postgres store operation: one statement each, a function call for the multi-step ones.

/** The statements of a store on the schema `s` (already quoted); `$n` are the parameters, all sent as text. */
export interface PostgresStatements {
  /**
   * (client, currency, amount, request id, fingerprint, ttl ms, claim id, lease ms, record id, created at, payment
   * intent, resource, deadline) → outcome, new_balance; rolled back with SQLSTATE C4L8T when it finished after the
   * deadline (ms since the epoch on the server's clock, server-clock.ts; NULL: none).
   */
  deduct: string;
  /** The twelve arrays of postgres-deduct-batch.ts and a deadline (as `deduct`) → ord, outcome, new_balance: one row per deduction. */
  deductBatch: string;
  /** (client, request id, claim id): uses the repeat up when that claim is its latest (CR-6.9). */
  confirmRepeat: string;
  /**
   * (client, currency, amount, record id, request id, refund id, ttl ms, deadline) → outcome (`refunded`, `superseded`:
   * schema version 8), new_balance; SQLSTATE 22003 on overflow; rolled back with SQLSTATE C4L8T when it finished after
   * the deadline (NULL: none), as `deduct`.
   */
  refund: string;
  /** () → id: the store's id. */
  storeId: string;
  /** () → now_ms: the server's clock, ms since the epoch (rounded down). */
  clock: string;
  /** (client, currency, amount) → new_balance; SQLSTATE 22003 on overflow. */
  add: string;
  /** (client): creates the client when missing. */
  ensure: string;
  /** (client) → top_ups, created_at, currency, balance: one row per currency held, one row of NULLs for none. */
  client: string;
  /** (payment intent, client, currency, amount, record id) → credited, new_balance; SQLSTATE 22003 on overflow. */
  credit: string;
  /**
   * As `credit`, and (store id): credits only while the `store` table holds that id, whose row it locks (FOR KEY SHARE)
   * before the credit, so that a DELETE or TRUNCATE of it waits for the credit to commit; no row back (nothing done)
   * when the table does not hold it.
   */
  creditChecked: string;
  /** (id): writes `id` as the store's id when the `store` table holds none (it was emptied); run under an advisory lock. */
  pinStoreId: string;
  /** (id, type, client, currency, amount, created at, payment intent, resource). */
  append: string;
  /** (client) → the records, oldest first. */
  list: string;
  /** (payment intent) → a row when credited. */
  credited: string;
  /** (payment intent, key, amount) → changed, taken, credited_client, credited_currency, new_balance. */
  reverse: string;
  /**
   * (limit, before): of the `limit` oldest records (by `seq`, the primary key: no scan), deletes those whose
   * `created_at` (ISO 8601 UTC) is before `before`; rows another prune holds are skipped, never waited for.
   */
  pruneLog: string;
  /** (event id) → a row when processed. */
  eventSeen: string;
  /** (event id). */
  markEvent: string;
  /** (name, token, ttl ms) → a row when the lease was free or expired and is now `token`'s. */
  acquire: string;
  /** (name, token) → a row when `token` held the unexpired lease and released it. */
  release: string;
}

/** The statements for the schema `s` (a quoted identifier). */
export function postgresStatements(s: string): PostgresStatements {
  return {
    // The select list runs after the function (a function scan is read once complete): a late statement rolls back.
    deduct: `SELECT outcome, new_balance, ${s}.within_deadline($13::bigint) FROM ${s}.deduct_claiming($1::text, $2::text, $3::bigint,
      $4::text, $5::text, $6::bigint, $7::text, $8::bigint, $9::text, $10::text, $11::text, $12::text)`,
    deductBatch: `SELECT ord, outcome, new_balance, ${s}.within_deadline($13::bigint) FROM ${s}.deduct_batch_claiming($1::text[],
      $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[])`,
    confirmRepeat: `SELECT ${s}.confirm_repeat($1::text, $2::text, $3::text)`,
    refund: `SELECT outcome, new_balance, ${s}.within_deadline($8::bigint) FROM ${s}.refund_deduction_unless_repeated($1::text,
      $2::text, $3::bigint, $4::text, $5::text, $6::text, $7::bigint)`,
    storeId: `SELECT id FROM ${s}.store ORDER BY id LIMIT 1`,
    clock: `SELECT ${s}.now_ms() AS now_ms`,
    add: `SELECT new_balance FROM ${s}.add_balance($1::text, $2::text, $3::bigint)`,
    ensure: `INSERT INTO ${s}.clients (client_id, top_ups, created_at) VALUES ($1::text, 0, ${s}.now_iso())
      ON CONFLICT (client_id) DO NOTHING`,
    client: `SELECT c.top_ups, c.created_at, b.currency, b.balance
      FROM ${s}.clients c LEFT JOIN ${s}.balances b ON b.client_id = c.client_id
      WHERE c.client_id = $1::text ORDER BY b.currency`,
    credit: `SELECT credited, new_balance FROM ${s}.credit_top_up($1::text, $2::text, $3::text, $4::bigint, $5::text)`,
    // The function's first argument names the kept row (LATERAL), so it runs once per such row and never without one.
    creditChecked: `SELECT c.credited, c.new_balance
      FROM (SELECT id FROM ${s}.store WHERE id = $6::text FOR KEY SHARE) kept
      CROSS JOIN LATERAL ${s}.credit_top_up(CASE WHEN kept.id = $6::text THEN $1::text END, $2::text, $3::text, $4::bigint, $5::text) c`,
    pinStoreId: `INSERT INTO ${s}.store (id) SELECT $1::text WHERE NOT EXISTS (SELECT 1 FROM ${s}.store)`,
    append: `INSERT INTO ${s}.transactions (id, type, client_id, currency, amount, created_at, payment_intent_id, resource)
      VALUES ($1::text, $2::text, $3::text, $4::text, $5::bigint, $6::text, $7::text, $8::text)`,
    list: `SELECT id, type, client_id, currency, amount, created_at, payment_intent_id, resource
      FROM ${s}.transactions WHERE client_id = $1::text ORDER BY seq`,
    pruneLog: `DELETE FROM ${s}.transactions WHERE seq IN (
      SELECT seq FROM (SELECT seq, created_at FROM ${s}.transactions ORDER BY seq LIMIT $1::bigint FOR UPDATE SKIP LOCKED) head
      WHERE created_at < $2::text)`,
    credited: `SELECT 1 AS one FROM ${s}.credited_payment_intents WHERE payment_intent_id = $1::text`,
    reverse: `SELECT changed, taken, credited_client, credited_currency, new_balance
      FROM ${s}.reverse_top_up($1::text, $2::text, $3::bigint)`,
    eventSeen: `SELECT 1 AS one FROM ${s}.processed_events WHERE event_id = $1::text`,
    markEvent: `INSERT INTO ${s}.processed_events (event_id) VALUES ($1::text) ON CONFLICT (event_id) DO NOTHING`,
    // Takes the lease when free or expired, in one statement (the server's clock): a row back means acquired.
    acquire: `INSERT INTO ${s}.locks AS l (name, token, expires_at) VALUES ($1::text, $2::text, ${s}.now_ms() + $3::bigint)
      ON CONFLICT (name) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
        WHERE l.expires_at <= ${s}.now_ms()
      RETURNING l.token`,
    release: `DELETE FROM ${s}.locks WHERE name = $1::text AND token = $2::text AND expires_at > ${s}.now_ms() RETURNING name`,
  };
}
