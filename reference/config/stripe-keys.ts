// Shape checks of Stripe keys, shared by the gate options, the one-call set-up and the Stripe processor.
import { Credit402ConfigError } from './config-error.ts';

const SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/;
const PUBLISHABLE_KEY = /^pk_(test|live)_[A-Za-z0-9_]+$/;

/** Returns `test` or `live` for a well-formed secret key, or throws ERR_STRIPE_SECRET_KEY. */
export function secretKeyMode(key: unknown): 'test' | 'live' {
  const match = typeof key === 'string' ? SECRET_KEY.exec(key) : null;
  if (!match) {
    throw new Credit402ConfigError('ERR_STRIPE_SECRET_KEY', 'stripeSecretKey must look like sk_test_…, sk_live_…, rk_test_… or rk_live_…');
  }
  return match[2] as 'test' | 'live';
}

/** Returns `test` or `live` for a well-formed publishable key, or throws ERR_PUBLISHABLE_KEY. */
export function publishableKeyMode(key: unknown): 'test' | 'live' {
  const match = typeof key === 'string' ? PUBLISHABLE_KEY.exec(key) : null;
  if (!match) {
    throw new Credit402ConfigError('ERR_PUBLISHABLE_KEY', 'stripePublishableKey must look like pk_test_… or pk_live_…');
  }
  return match[1] as 'test' | 'live';
}
