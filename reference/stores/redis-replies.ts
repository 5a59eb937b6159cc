// Conversions between the Redis store's wire values and its records: exact integers, log entries, redacted URLs.
import type { TransactionRecord } from './store.ts';

/** The field/value pairs of a log entry for a record. */
export function recordFields(r: TransactionRecord): string[] {
  const fields = ['id', r.id, 'type', r.type, 'client_id', r.clientId, 'amount', String(r.amount), 'created_at', r.createdAt];
  if (r.paymentIntentId !== undefined) fields.push('payment_intent_id', r.paymentIntentId);
  if (r.resource !== undefined) fields.push('resource', r.resource);
  return fields;
}

/** A reply value as text (node-redis may hand out a Buffer). */
export function toText(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  throw new TypeError(`unexpected Redis reply for ${name}: ${String(value)}`);
}

/** A decimal reply as an exact safe integer; a RangeError otherwise (never a rounded number). */
export function toSafeInteger(value: unknown, name: string): number {
  const text = toText(value, name);
  const number = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(number)) {
    throw new RangeError(`${name} ${text} is not a safe integer`);
  }
  return number;
}

/** A reply that must be an array. */
export function asArray(value: unknown, name: string): unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`unexpected Redis reply for ${name}`);
  return value;
}

/** One XRANGE entry as a transaction record. */
export function toTransaction(entry: unknown): TransactionRecord {
  const fields = asArray(asArray(entry, 'XRANGE entry')[1], 'XRANGE fields');
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(toText(fields[i], 'field'), toText(fields[i + 1], 'value'));
  const type = map.get('type');
  if (type !== 'topup' && type !== 'deduction') throw new TypeError(`unexpected transaction type ${type}`);
  const record: TransactionRecord = {
    id: map.get('id') ?? '',
    type,
    clientId: map.get('client_id') ?? '',
    amount: toSafeInteger(map.get('amount'), 'amount'),
    createdAt: map.get('created_at') ?? '',
  };
  const paymentIntentId = map.get('payment_intent_id');
  const resource = map.get('resource');
  if (paymentIntentId !== undefined) record.paymentIntentId = paymentIntentId;
  if (resource !== undefined) record.resource = resource;
  return record;
}

/** The URL with its password masked, for error messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}
