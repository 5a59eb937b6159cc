// Rows of the Postgres store read back: every column arrives as the server's text and is validated, never cast.
import type { CustomTypesConfig, QueryResult } from 'pg';
import type { ClientRecord, Currency, DeductionRefundResult, DeductionResult, TopUpCreditResult, TopUpReversalResult, TransactionRecord } from '../store.ts';
import { fromStoredTransaction } from '../transaction-records.ts';
import { assertCurrency } from '../validate.ts';

/** A row as node-postgres hands it over, nothing known about its values yet. */
export type Row = Readonly<Record<string, unknown>>;

/**
 * No type parsing: every column arrives as the text the server sent (a bigint as its decimal digits, a boolean as
 * `t` or `f`), whatever parsers the process installed globally (`pg.types.setTypeParser`).
 */
export const RAW_TEXT: CustomTypesConfig = { getTypeParser: () => (value: string) => value };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const DECIMAL = /^-?[0-9]+$/;

function columnError(column: string, expected: string, value: unknown): TypeError {
  return new TypeError(`PostgresStore: column ${column} must be ${expected}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
}

/** The text of `column`; a TypeError when it is not text. */
export function textOf(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw columnError(column, 'text', value);
  return value;
}

/** The text of `column`, or null for SQL NULL. */
export function nullableTextOf(row: Row, column: string): string | null {
  return row[column] === null ? null : textOf(row, column);
}

/** The bigint of `column` as an exact number; a RangeError when it is outside ±Number.MAX_SAFE_INTEGER. */
export function integerOf(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'string' || !DECIMAL.test(value)) throw columnError(column, 'an integer', value);
  const exact = BigInt(value);
  if (exact > MAX_SAFE || exact < -MAX_SAFE) throw new RangeError(`PostgresStore: ${column} ${value} is outside the safe integer range`);
  return Number(exact);
}

/** The boolean of `column` (`t` or `f`). */
export function booleanOf(row: Row, column: string): boolean {
  const value = row[column];
  if (value !== 't' && value !== 'f') throw columnError(column, 'a boolean', value);
  return value === 't';
}

/** The one row of `result`; a TypeError for none or several. */
export function oneRow(result: QueryResult<Row>, what: string): Row {
  const [row, extra] = result.rows;
  if (row === undefined || extra !== undefined) throw new TypeError(`PostgresStore: ${what} answered ${result.rows.length} rows, not one`);
  return row;
}

/** The currency of `column`: three lowercase letters. */
function currencyOf(row: Row, column: string): Currency {
  const value = textOf(row, column);
  assertCurrency(value, column);
  return value;
}

/** A row of `deduct_claiming(…)`: `outcome` and `new_balance`. */
export function toDeductionResult(row: Row): DeductionResult {
  const outcome = textOf(row, 'outcome');
  switch (outcome) {
    case 'deducted':
    case 'repeated':
      return { status: outcome, balance: integerOf(row, 'new_balance') };
    case 'insufficient':
    case 'busy':
    case 'conflict':
      return { status: outcome };
    default:
      throw columnError('outcome', 'deducted, repeated, insufficient, busy or conflict', outcome);
  }
}

/** A row of `refund_deduction_unless_repeated(…)`: `outcome` (`refunded` or `superseded`) and `new_balance`. */
export function toRefundResult(row: Row): DeductionRefundResult {
  const outcome = textOf(row, 'outcome');
  if (outcome !== 'refunded' && outcome !== 'superseded') throw columnError('outcome', 'refunded or superseded', outcome);
  return { status: outcome, balance: integerOf(row, 'new_balance') };
}

/** A row of `credit_top_up(…)`: `credited` and `new_balance`. */
export function toCreditResult(row: Row): TopUpCreditResult {
  return { credited: booleanOf(row, 'credited'), balance: integerOf(row, 'new_balance') };
}

/** A row of `reverse_top_up(…)`: the credited client and currency are NULL when the PaymentIntent is not credited. */
export function toReversalResult(row: Row): TopUpReversalResult {
  const changed = booleanOf(row, 'changed');
  const taken = integerOf(row, 'taken');
  const clientId = nullableTextOf(row, 'credited_client');
  if (clientId === null) return { changed, taken, clientId: null, currency: null, balance: null };
  return { changed, taken, clientId, currency: currencyOf(row, 'credited_currency'), balance: integerOf(row, 'new_balance') };
}

/** The rows of the client query (the client's columns, then one currency and balance per row, or NULLs when it holds none). */
export function toClientRecord(rows: readonly Row[]): ClientRecord | null {
  const [first] = rows;
  if (first === undefined) return null;
  const balances: Record<Currency, number> = {};
  for (const row of rows) {
    if (row.currency === null) continue;
    balances[currencyOf(row, 'currency')] = integerOf(row, 'balance');
  }
  return { balances, topUps: integerOf(first, 'top_ups'), createdAt: textOf(first, 'created_at') };
}

/** A row of the transactions table as a record, validated as `recordTransaction` validates its argument. */
export function toTransaction(row: Row): TransactionRecord {
  return fromStoredTransaction({ ...row, amount: integerOf(row, 'amount') });
}
