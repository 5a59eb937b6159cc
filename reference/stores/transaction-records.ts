// Transaction records in and out of the stores: copies with the contract's fields only, and stored rows made records again.
import type { TransactionRecord } from './store.ts';
import { assertTransactionRecord } from './validate.ts';

/**
 * A transaction as a store keeps it (an SQLite row, the fields of a Redis log entry), under its column names;
 * nothing is checked yet but the amount, which the store has already read as an exact number. An absent
 * optional field is `null` or missing.
 */
interface StoredTransaction {
  id?: unknown;
  type?: unknown;
  client_id?: unknown;
  currency?: unknown;
  amount: number;
  created_at?: unknown;
  payment_intent_id?: unknown;
  resource?: unknown;
}

/** Copies a transaction record, keeping only the contract's fields. */
export function copyTransaction(record: TransactionRecord): TransactionRecord {
  const copy: TransactionRecord = {
    id: record.id,
    type: record.type,
    clientId: record.clientId,
    currency: record.currency,
    amount: record.amount,
    createdAt: record.createdAt,
  };
  if (record.paymentIntentId !== undefined) copy.paymentIntentId = record.paymentIntentId;
  if (record.resource !== undefined) copy.resource = record.resource;
  return copy;
}

/**
 * The record a stored transaction holds, validated as on its way in (a TypeError or RangeError names the field
 * that is wrong), so a damaged row never reads as a record.
 */
export function fromStoredTransaction(stored: StoredTransaction): TransactionRecord {
  const record = {
    id: stored.id,
    type: stored.type,
    clientId: stored.client_id,
    currency: stored.currency,
    amount: stored.amount,
    createdAt: stored.created_at,
    paymentIntentId: stored.payment_intent_id ?? undefined,
    resource: stored.resource ?? undefined,
  };
  assertTransactionRecord(record);
  return copyTransaction(record);
}
