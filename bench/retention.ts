// What each store keeps of the transaction log and the other per-payment data, as reference/stores/ documents and implements it.
import type { StoreKind } from './options.ts';

/** A store's retention, for the soak's report: what is kept and whether a soak's log can plateau. */
export interface Retention {
  statement: string;
  /** Where the bench read it. */
  source: string;
  /** Whether the log stops growing within a soak (a cap per client); otherwise every paid request adds a record. */
  logCapped: boolean;
}

/** Per store; the soak reports the live `creditRetentionMs` of the running store beside it. */
export const RETENTION: Record<StoreKind, Retention> = {
  memory: {
    statement:
      'log capped per client at maxTransactionsPerClient (default 10,000; trimmed to it once it passes 11,000); kept request ids swept once expired (requestIdTtlMs, default 5 min); clients and credited markers kept for the life of the process; no creditRetentionMs',
    source: 'reference/stores/memory/memory-store.ts, memory-backend.ts',
    logCapped: true,
  },
  sqlite: {
    statement:
      'log rows pruned after transactionTtlSeconds, default 90 days (a bounded batch every 64 deductions); credited PaymentIntents and processed events kept forever (no creditRetentionMs); expired request ids pruned up to 100 per kept one',
    source: 'reference/stores/README.md "Retention (SQLite, Postgres)", sqlite-store.ts, sqlite-retention.ts',
    logCapped: false,
  },
  redis: {
    statement:
      'log stream entries trimmed (XADD MINID) after transactionTtlSeconds, default 90 days; credited markers and reversals expire after it too (creditRetentionMs = 90 days); event ids after 30 days; client hashes never',
    source: 'reference/stores/redis/redis-options.ts, redis-store.ts, README.md "TTLs and retention (Redis)"',
    logCapped: false,
  },
  postgres: {
    statement:
      'log rows pruned after transactionTtlSeconds, default 90 days (in the background every 256 appends); credited PaymentIntents and processed events kept forever (no creditRetentionMs); expired request ids pruned up to 100 per deduction',
    source: 'reference/stores/postgres/postgres-store.ts, postgres-retention.ts, README.md "Retention (SQLite, Postgres)"',
    logCapped: false,
  },
};
