// Live Stripe keys go to Stripe only: never to the embedded emulator, nor to any other API base.
import { Credit402ConfigError } from './config-error.ts';

const LIVE_KEY = /^(sk|rk|pk)_live_/;

/** A URL's host as DNS reads it: lowercase (as the URL parser leaves it), without the trailing dots of a fully qualified name. */
function dnsHost(url: URL): string {
  return url.hostname.replace(/\.+$/, '');
}

/**
 * Whether `stripeApi` (`embedded`, `stripe` or a base URL) is Stripe itself: `stripe`, or https://api.stripe.com (any
 * letter case, with or without the trailing dot of a fully qualified name, port 443).
 */
export function isStripeItself(stripeApi: string): boolean {
  if (stripeApi === 'stripe') return true;
  if (!URL.canParse(stripeApi)) return false;
  const url = new URL(stripeApi);
  return url.protocol === 'https:' && dnsHost(url) === 'api.stripe.com' && (url.port === '' || url.port === '443');
}

/**
 * Whether `stripeApi` may reach Stripe: `stripe`, or a URL whose host is stripe.com or any name under it, whatever
 * its scheme, port, credentials, letter case, percent-encoding or trailing dots (`https://API.Stripe.com.:8443`,
 * `http://www.stripe.com`). What must never run against Stripe (the conformance control routes) is refused on it.
 */
export function mayReachStripe(stripeApi: string): boolean {
  if (isStripeItself(stripeApi)) return true;
  if (!URL.canParse(stripeApi)) return false;
  const host = dnsHost(new URL(stripeApi));
  return host === 'stripe.com' || host.endsWith('.stripe.com');
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
