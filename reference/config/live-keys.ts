// Live Stripe keys go to Stripe only: never to the embedded emulator, nor to any other API base.
import { Credit402ConfigError } from './config-error.ts';

const LIVE_KEY = /^(sk|rk|pk)_live_/;

/** Whether `stripeApi` (`embedded`, `stripe` or a base URL) is Stripe itself: `stripe`, or https://api.stripe.com. */
export function isStripeItself(stripeApi: string): boolean {
  if (stripeApi === 'stripe') return true;
  if (!URL.canParse(stripeApi)) return false;
  const url = new URL(stripeApi);
  return url.protocol === 'https:' && url.hostname === 'api.stripe.com' && (url.port === '' || url.port === '443');
}

/** The key fields holding a live key (`sk_live_…`, `rk_live_…`, `pk_live_…`): none in test mode. */
export function liveKeyFields(config: { stripeSecretKey?: unknown; stripePublishableKey?: unknown }): Array<'stripeSecretKey' | 'stripePublishableKey'> {
  return (['stripeSecretKey', 'stripePublishableKey'] as const).filter((field) => typeof config[field] === 'string' && LIVE_KEY.test(config[field]));
}

/**
 * Throws ERR_LIVE_KEYS_WITH_EMULATOR when a live key (`sk_live_…`, `rk_live_…`, `pk_live_…`) is configured with any
 * Stripe API but Stripe's own: with the emulator (embedded or by URL), test cards such as `pm_card_visa` would pay for
 * real service, and a live secret key would be sent to a server that is not Stripe.
 */
export function assertLiveKeysReachStripe(config: { stripeSecretKey?: unknown; stripePublishableKey?: unknown; stripeApi: string }): void {
  const live = liveKeyFields(config);
  if (live.length === 0 || isStripeItself(config.stripeApi)) return;
  const where = config.stripeApi === 'embedded' ? 'the embedded Stripe emulator' : `the Stripe API at ${config.stripeApi}, which is not api.stripe.com`;
  throw new Credit402ConfigError(
    'ERR_LIVE_KEYS_WITH_EMULATOR',
    `${live.join(' and ')} ${live.length > 1 ? 'are live keys' : 'is a live key'}, configured with ${where} (stripeApi ${JSON.stringify(config.stripeApi)}); live keys need stripeApi "stripe", test keys (sk_test_…, pk_test_…) work with the emulator`,
  );
}
