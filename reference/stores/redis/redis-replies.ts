// Conversions between the Redis store's wire values and its records: exact integers, validated replies, redacted URLs.
import type { ClientRecord, Currency, DeductionRefundResult, DeductionResult, TopUpReversalResult, TransactionRecord } from '../store.ts';
import { LateDeductionError } from '../deduction-deadline.ts';
import { fromStoredTransaction } from '../transaction-records.ts';
import { assertCurrency } from '../validate.ts';

/** The field/value pairs of a log entry for a record. */
export function recordFields(r: TransactionRecord): string[] {
  const fields = [
    'id', r.id, 'type', r.type, 'client_id', r.clientId, 'currency', r.currency, 'amount', String(r.amount), 'created_at', r.createdAt,
  ];
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

/** A reply that must be a currency code (a pinned legacy currency, a credited marker's currency). */
export function toCurrency(value: unknown, name: string): Currency {
  const text = toText(value, name);
  assertCurrency(text, name);
  return text;
}

/** A flat field/value array (HGETALL, stream entry fields) as a map. */
function toFieldMap(value: unknown, name: string): Map<string, string> {
  const fields = asArray(value, name);
  if (fields.length % 2 !== 0) throw new TypeError(`unexpected Redis reply for ${name}: odd field count`);
  const map = new Map<string, string>();
  for (let i = 0; i < fields.length; i += 2) map.set(toText(fields[i], `${name} field`), toText(fields[i + 1], `${name} value`));
  return map;
}

/** A field that must be present and non-empty. */
function required(map: Map<string, string>, field: string, name: string): string {
  const value = map.get(field);
  if (value === undefined || value === '') throw new TypeError(`${name} lacks ${field}`);
  return value;
}

/**
 * One XRANGE entry as a validated transaction record; an entry written before records had a currency reads as
 * `legacyCurrency`.
 */
export function toTransaction(entry: unknown, legacyCurrency: Currency): TransactionRecord {
  const fields = toFieldMap(asArray(entry, 'XRANGE entry')[1], 'transaction');
  return fromStoredTransaction({
    ...Object.fromEntries(fields),
    currency: fields.get('currency') ?? legacyCurrency,
    amount: toSafeInteger(fields.get('amount'), 'transaction amount'),
  });
}

/** A client hash (HGETALL pairs, migrated) as a record; null when empty (no such client). */
export function toClientRecord(reply: unknown): ClientRecord | null {
  const map = toFieldMap(reply, 'client');
  if (map.size === 0) return null;
  const balances: Record<Currency, number> = {};
  for (const [field, value] of map) {
    if (!field.startsWith('balance:')) continue;
    balances[toCurrency(field.slice('balance:'.length), 'client balance currency')] = toSafeInteger(value, field);
  }
  return {
    balances,
    topUps: toSafeInteger(map.get('top_ups'), 'top_ups'),
    createdAt: required(map, 'created_at', 'client'),
  };
}

/** The DEDUCT script's reply; throws a {@link LateDeductionError} for `late` (nothing was applied). */
export function toDeductionResult(reply: unknown): DeductionResult {
  const [status, balance] = asArray(reply, 'deductBalance');
  switch (toText(status, 'deductBalance status')) {
    case 'deducted':
      return { status: 'deducted', balance: toSafeInteger(balance, 'balance') };
    case 'repeated':
      return { status: 'repeated', balance: toSafeInteger(balance, 'balance') };
    case 'insufficient':
      return { status: 'insufficient' };
    case 'busy':
      return { status: 'busy' };
    case 'conflict':
      return { status: 'conflict' };
    case 'late':
      throw new LateDeductionError('RedisStore');
    default:
      throw new TypeError(`unexpected Redis reply for deductBalance: ${String(status)}`);
  }
}

/**
 * The REFUND_DEDUCTION script's reply: `refunded` (now, or `repeated`: by an earlier call with the refund id) or
 * `superseded`, with the balance after it; throws a {@link LateDeductionError} for `late` (nothing was applied).
 */
export function toRefundResult(reply: unknown): DeductionRefundResult {
  const [status, balance] = asArray(reply, 'refundDeduction');
  switch (toText(status, 'refundDeduction status')) {
    case 'refunded':
    case 'repeated':
      return { status: 'refunded', balance: toSafeInteger(balance, 'balance') };
    case 'superseded':
      return { status: 'superseded', balance: toSafeInteger(balance, 'balance') };
    case 'late':
      throw new LateDeductionError('RedisStore', 'refund');
    default:
      throw new TypeError(`unexpected Redis reply for refundDeduction: ${String(status)}`);
  }
}

/** The REVERSE_TOP_UP script's reply. */
export function toReversalResult(reply: unknown): TopUpReversalResult {
  const [changed, taken, clientId, currency, balance] = asArray(reply, 'reverseTopUp').map((value) => toText(value, 'reverseTopUp'));
  return {
    changed: changed === '1',
    taken: toSafeInteger(taken, 'taken'),
    clientId: clientId || null,
    currency: currency ? toCurrency(currency, 'credited currency') : null,
    balance: balance ? toSafeInteger(balance, 'balance') : null,
  };
}
