// Currency facts from spec/currencies.json: which codes exist and the smallest/largest chargeable amounts.
import currencies from '../spec/currencies.json' with { type: 'json' };
import { invalidRequest } from './errors.ts';

const twoDecimal: Record<string, number> = currencies.twoDecimal;
const zeroDecimal = new Set<string>(currencies.zeroDecimal);
const threeDecimal = new Set<string>(currencies.threeDecimal);
const MIN_ZERO_DECIMAL = 50;
const MIN_THREE_DECIMAL = 500;
const SYMBOLS: Record<string, string> = { usd: '$', eur: '€', gbp: '£', jpy: '¥' };

const exponent = (currency: string): number => (zeroDecimal.has(currency) ? 0 : threeDecimal.has(currency) ? 3 : 2);

/** Smallest chargeable amount in minor units, or undefined for an unsupported currency. */
function minimumChargeMinor(currency: string): number | undefined {
  if (zeroDecimal.has(currency)) return MIN_ZERO_DECIMAL;
  if (threeDecimal.has(currency)) return MIN_THREE_DECIMAL;
  return twoDecimal[currency];
}

/** Formats minor units the way Stripe's amount errors do: `$0.50 usd`, `¥50 jpy`. */
function formatAmount(minor: number, currency: string): string {
  const digits = exponent(currency);
  const major = (minor / 10 ** digits).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${SYMBOLS[currency] ?? ''}${major} ${currency}`;
}

/** Lower-cases and validates a currency code; throws Stripe's 400 for an unknown one. */
export function parseCurrency(raw: string): string {
  const currency = raw.toLowerCase();
  if (minimumChargeMinor(currency) !== undefined) return currency;
  const supported = [...Object.keys(twoDecimal), ...zeroDecimal, ...threeDecimal].join(', ');
  throw invalidRequest(`Invalid currency: ${raw}. Stripe currently supports these currencies: ${supported}`, { param: 'currency' });
}

/** Checks a charge amount against the currency's bounds (Stripe's amount_too_small / amount_too_large). */
export function checkChargeAmount(amount: number, currency: string): void {
  if (amount < 1) {
    throw invalidRequest('This value must be greater than or equal to 1.', { param: 'amount', code: 'parameter_invalid_integer' });
  }
  const minimum = minimumChargeMinor(currency) ?? 1;
  if (amount < minimum) {
    throw invalidRequest(`Amount must be at least ${formatAmount(minimum, currency)}`, { param: 'amount', code: 'amount_too_small' });
  }
  if (amount > currencies.maximumChargeMinor) {
    const maximum = formatAmount(currencies.maximumChargeMinor, currency);
    throw invalidRequest(`Amount must be no more than ${maximum}`, { param: 'amount', code: 'amount_too_large' });
  }
  if (threeDecimal.has(currency) && amount % 10 !== 0) {
    throw invalidRequest(`Amounts in ${currency} must be divisible by 10 (the last digit must be 0).`, { param: 'amount', code: 'invalid_charge_amount' });
  }
}
