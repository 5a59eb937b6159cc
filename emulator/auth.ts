// API-key authentication: secret and restricted keys for everything, publishable keys only where Stripe.js may call.
import { authenticationError } from './errors.ts';

export type KeyKind = 'secret' | 'publishable';

const SECRET = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/;
const PUBLISHABLE = /^pk_(test|live)_[A-Za-z0-9_]+$/;

const NO_KEY =
  "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.";

export const PUBLISHABLE_NOT_ALLOWED =
  'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.';

/** `sk_test_****************abcd`, as Stripe echoes a rejected key. */
function maskKey(key: string): string {
  const prefix = /^[a-z]{2}_(test|live)_/.exec(key)?.[0] ?? '';
  const secret = key.slice(prefix.length);
  return secret.length <= 4 ? `${prefix}${'*'.repeat(secret.length)}` : `${prefix}${'*'.repeat(secret.length - 4)}${secret.slice(-4)}`;
}

/** The API key from `Authorization: Bearer <key>` or `Basic base64(<key>:)`. */
function extractKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(value, 'base64').toString('utf8').split(':')[0];
  return undefined;
}

/** Classifies the request's key; throws Stripe's 401 when it is missing or malformed. */
export function authenticate(authorization: string | undefined): KeyKind {
  const key = extractKey(authorization);
  if (!key) throw authenticationError(NO_KEY);
  if (SECRET.test(key)) return 'secret';
  if (PUBLISHABLE.test(key)) return 'publishable';
  throw authenticationError(`Invalid API Key provided: ${maskKey(key)}`);
}
