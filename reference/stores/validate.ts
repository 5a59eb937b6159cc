// Cheap input guards shared by the shipped stores; callers pass validated data, these catch bugs.
import type { Deduction, DeductionRefund, RepeatClaim, RepeatConfirmation, TopUpCredit, TopUpReversal, TransactionRecord } from './store.ts';

/** Throws a TypeError unless `value` is a non-empty string. */
export function assertNonEmptyString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${name} must be a non-empty string, got ${describe(value)}`);
  }
}

/** Throws a RangeError unless `value` is a safe integer of at least `min` (0 or 1). */
export function assertSafeInteger(value: unknown, name: string, min: 0 | 1): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    const kind = min === 0 ? 'non-negative' : 'positive';
    throw new RangeError(`${name} must be a ${kind} safe integer, got ${describe(value)}`);
  }
}

const LOWER_A = 0x61;
const LOWER_Z = 0x7a;
const isLower = (code: number): boolean => code >= LOWER_A && code <= LOWER_Z;

/** Whether `value` is three lowercase ASCII letters (`/^[a-z]{3}$/`, without a regular expression: every deduction checks it twice). */
function isCurrencyCode(value: string): boolean {
  return value.length === 3 && isLower(value.charCodeAt(0)) && isLower(value.charCodeAt(1)) && isLower(value.charCodeAt(2));
}

/** Throws a TypeError unless `value` is a lowercase three-letter currency code. */
export function assertCurrency(value: unknown, name = 'currency'): asserts value is string {
  if (typeof value !== 'string' || !isCurrencyCode(value)) {
    throw new TypeError(`${name} must be a lowercase three-letter currency code, got ${describe(value)}`);
  }
}

/**
 * Validates a {@link Deduction}: its record, when given, must be a `deduction` of the same client, currency
 * and amount; its request, when given, a non-empty id and fingerprint and a positive `ttlMs`; its `timeoutMs`, when
 * given, a positive safe integer.
 */
export function assertDeduction(deduction: Deduction): void {
  if (typeof deduction !== 'object' || deduction === null) throw new TypeError('deduction must be an object');
  const { clientId, currency, amount, record, request, timeoutMs } = deduction;
  if (timeoutMs !== undefined) assertSafeInteger(timeoutMs, 'timeoutMs', 1);
  assertNonEmptyString(clientId, 'clientId');
  assertCurrency(currency);
  assertSafeInteger(amount, 'amount', 0);
  if (record !== undefined) {
    assertTransactionRecord(record);
    if (record.type !== 'deduction' || record.clientId !== clientId || record.currency !== currency || record.amount !== amount) {
      throw new TypeError('record must be a deduction of the same client, currency and amount as the deduction');
    }
  }
  if (request !== undefined) {
    if (typeof request !== 'object' || request === null) throw new TypeError('request must be an object');
    assertNonEmptyString(request.id, 'request.id');
    assertNonEmptyString(request.fingerprint, 'request.fingerprint');
    assertSafeInteger(request.ttlMs, 'request.ttlMs', 1);
    if (request.claim !== undefined) assertRepeatClaim(request.claim);
  }
}

/** The longest repeat claim id a store keeps (the gate sends a UUID: 36 characters). */
export const MAX_CLAIM_ID_LENGTH = 256;

function assertClaimId(value: unknown, name: string): asserts value is string {
  assertNonEmptyString(value, name);
  if (value.length > MAX_CLAIM_ID_LENGTH) throw new TypeError(`${name} must be at most ${MAX_CLAIM_ID_LENGTH} characters`);
}

/** Validates a {@link RepeatClaim}: a non-empty id of at most {@link MAX_CLAIM_ID_LENGTH} characters and a positive `leaseMs`. */
function assertRepeatClaim(claim: RepeatClaim): void {
  if (typeof claim !== 'object' || claim === null) throw new TypeError('request.claim must be an object');
  assertClaimId(claim.id, 'request.claim.id');
  assertSafeInteger(claim.leaseMs, 'request.claim.leaseMs', 1);
}

/** Validates a {@link RepeatConfirmation}: a non-empty client id and request id, and a claim id as {@link assertRepeatClaim} wants. */
export function assertRepeatConfirmation(confirmation: RepeatConfirmation): void {
  if (typeof confirmation !== 'object' || confirmation === null) throw new TypeError('confirmation must be an object');
  assertNonEmptyString(confirmation.clientId, 'clientId');
  assertNonEmptyString(confirmation.requestId, 'requestId');
  assertClaimId(confirmation.claimId, 'claimId');
}

/** The longest refund id a store keeps (the gate sends a UUID: 36 characters). */
export const MAX_REFUND_ID_LENGTH = 256;

/**
 * Validates a {@link DeductionRefund}: a positive amount, a non-empty `refundId` of at most {@link MAX_REFUND_ID_LENGTH}
 * characters, non-empty `recordId` and `requestId` when given, and a positive safe integer `timeoutMs` when given.
 */
export function assertDeductionRefund(refund: DeductionRefund): void {
  if (typeof refund !== 'object' || refund === null) throw new TypeError('refund must be an object');
  assertNonEmptyString(refund.clientId, 'clientId');
  assertCurrency(refund.currency);
  assertSafeInteger(refund.amount, 'amount', 1);
  if (refund.recordId !== undefined) assertNonEmptyString(refund.recordId, 'recordId');
  if (refund.requestId !== undefined) assertNonEmptyString(refund.requestId, 'requestId');
  assertNonEmptyString(refund.refundId, 'refundId');
  if (refund.refundId.length > MAX_REFUND_ID_LENGTH) throw new TypeError(`refundId must be at most ${MAX_REFUND_ID_LENGTH} characters`);
  if (refund.timeoutMs !== undefined) assertSafeInteger(refund.timeoutMs, 'timeoutMs', 1);
}

/** Validates a {@link TopUpCredit}. */
export function assertTopUpCredit(credit: TopUpCredit): void {
  if (typeof credit !== 'object' || credit === null) throw new TypeError('credit must be an object');
  assertNonEmptyString(credit.clientId, 'clientId');
  assertCurrency(credit.currency);
  assertSafeInteger(credit.amount, 'amount', 1);
  assertNonEmptyString(credit.paymentIntentId, 'paymentIntentId');
  if (credit.storeId !== undefined) assertNonEmptyString(credit.storeId, 'storeId');
}

/** A transaction record's fields not checked yet: one given to a store, or one read back from storage. */
type UncheckedTransaction = { readonly [Field in keyof TransactionRecord]?: unknown };

/** Validates a {@link TransactionRecord}: one appended to a log, or one read back from it. */
export function assertTransactionRecord(record: UncheckedTransaction): asserts record is TransactionRecord {
  if (typeof record !== 'object' || record === null) throw new TypeError('record must be an object');
  assertNonEmptyString(record.id, 'record.id');
  if (record.type !== 'topup' && record.type !== 'deduction') {
    throw new TypeError(`record.type must be 'topup' or 'deduction', got ${describe(record.type)}`);
  }
  assertNonEmptyString(record.clientId, 'record.clientId');
  assertCurrency(record.currency, 'record.currency');
  assertSafeInteger(record.amount, 'record.amount', 0);
  assertNonEmptyString(record.createdAt, 'record.createdAt');
  if (record.paymentIntentId !== undefined) assertNonEmptyString(record.paymentIntentId, 'record.paymentIntentId');
  if (record.resource !== undefined) assertNonEmptyString(record.resource, 'record.resource');
}

/** Validates a {@link TopUpReversal}. */
export function assertTopUpReversal(reversal: TopUpReversal): void {
  if (typeof reversal !== 'object' || reversal === null) throw new TypeError('reversal must be an object');
  assertNonEmptyString(reversal.paymentIntentId, 'paymentIntentId');
  assertNonEmptyString(reversal.key, 'key');
  assertSafeInteger(reversal.amount, 'amount', 1);
}

/** The longest lease token `acquireLock` takes from its caller, in characters (the gate sends a 36-character UUID). */
export const MAX_LOCK_TOKEN_LENGTH = 256;

/** A lease token given to `acquireLock` that is not a non-empty string of at most {@link MAX_LOCK_TOKEN_LENGTH} characters. */
export class LockTokenError extends TypeError {
  readonly code = 'ERR_LOCK_TOKEN';

  constructor(token: unknown) {
    const got = typeof token === 'string' && token.length > MAX_LOCK_TOKEN_LENGTH ? `${token.length} characters` : describe(token);
    super(`token must be a non-empty string of at most ${MAX_LOCK_TOKEN_LENGTH} characters, got ${got}`);
    this.name = 'LockTokenError';
  }
}

/**
 * Validates the arguments of `acquireLock`: a non-empty name, a positive safe integer TTL and, when given, a token that
 * is a non-empty string of at most {@link MAX_LOCK_TOKEN_LENGTH} characters (else a {@link LockTokenError}).
 */
export function assertLockRequest(name: unknown, ttlMs: unknown, token?: unknown): void {
  assertNonEmptyString(name, 'name');
  assertSafeInteger(ttlMs, 'ttlMs', 1);
  if (token !== undefined && (typeof token !== 'string' || token.length === 0 || token.length > MAX_LOCK_TOKEN_LENGTH)) {
    throw new LockTokenError(token);
  }
}

/**
 * Units a reversal takes now: the client has lost min(units, reversed) in total, so raising the
 * reversed sum from `before` to `after` takes the difference of the capped values.
 */
export function reversalTake(units: number, before: number, after: number): number {
  return Math.min(units, after) - Math.min(units, before);
}

/** `a + b` for non-negative safe integers, saturating at Number.MAX_SAFE_INTEGER (reversal sums). */
export function addSaturating(a: number, b: number): number {
  return a > Number.MAX_SAFE_INTEGER - b ? Number.MAX_SAFE_INTEGER : a + b;
}

/** Throws a RangeError when `balance + amount` would pass Number.MAX_SAFE_INTEGER. */
export function assertNoOverflow(balance: number, amount: number): void {
  if (balance > Number.MAX_SAFE_INTEGER - amount) {
    throw new RangeError(`balance ${balance} + ${amount} would exceed Number.MAX_SAFE_INTEGER`);
  }
}

/** The currency that balances written before balances had a currency (store schema 1) are migrated to; default `usd`. */
export function legacyCurrencyOf(option: string | undefined): string {
  const currency = option ?? 'usd';
  assertCurrency(currency, 'legacyCurrency');
  return currency;
}

/** The error every shipped store rejects with once closed. */
export function closedError(store: string): Error {
  return new Error(`${store} is closed`);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
