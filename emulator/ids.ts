// Stripe-looking identifiers (`pi_…`, `req_…`) and the clock the emulator stamps objects with.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string of `length` characters. */
export function randomBase62(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}

/** A new object id such as `pi_3MtwBwLkdIwHu7ix28a3tqPa`. */
export const newId = (prefix: string): string => `${prefix}_${randomBase62(24)}`;

export const newRequestId = (): string => `req_${randomBase62(14)}`;

/** Current time in unix seconds, as Stripe's `created`. */
export const unixNow = (): number => Math.floor(Date.now() / 1000);
