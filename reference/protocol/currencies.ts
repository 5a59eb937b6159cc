// Supported currencies and the processor's smallest charge for each, read from spec/currencies.json.
import currencies from '../../spec/currencies.json' with { type: 'json' };

const minimums: Readonly<Record<string, number>> = currencies.twoDecimal;

/** True for a lowercase ISO 4217 code of a two-decimal currency the protocol supports. */
export function isSupportedCurrency(currency: string): boolean {
  return Object.hasOwn(minimums, currency);
}

/** Smallest charge the processor accepts for the currency, in minor units. */
export function minimumChargeCents(currency: string): number {
  const minimum = minimums[currency];
  if (minimum === undefined) throw new RangeError(`unsupported currency: ${currency}`);
  return minimum;
}
