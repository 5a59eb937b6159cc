// One-call set-up: a gate with the Stripe processor, from the seed's configuration fields.
import { Credit402ConfigError } from './config/config-error.ts';
import { createGate, type Gate } from './gate/gate.ts';
import { publishableKeyMode, secretKeyMode } from './config/stripe-keys.ts';
import type { GateOptions } from './gate/options.ts';
import { StripeProcessor, type StripeApiBase } from './processor/stripe-processor.ts';

/** The seed's server configuration plus the project's options. */
export interface Credit402Options extends Omit<GateOptions, 'processor'> {
  /** Stripe secret key (test or live, of the same mode as the publishable key). */
  stripeSecretKey: string;
  /** Point the Stripe SDK at another API base (the emulator). */
  stripeApi?: StripeApiBase;
  /** Customer metadata key carrying the client id; default `credit402_client_id`. */
  customerMetadataKey?: string;
  /** Stripe request timeout in milliseconds; default 20000. */
  stripeTimeoutMs?: number;
}

/** Builds a gate backed by Stripe; throws a Credit402ConfigError when the options are invalid. */
export function createCredit402(options: Credit402Options): Gate {
  if (secretKeyMode(options.stripeSecretKey) !== publishableKeyMode(options.stripePublishableKey)) {
    throw new Credit402ConfigError('ERR_KEY_MODE_MISMATCH', 'stripeSecretKey and stripePublishableKey must both be test keys or both be live keys');
  }
  const processor = new StripeProcessor({
    secretKey: options.stripeSecretKey,
    ...(options.stripeApi ? { api: options.stripeApi } : {}),
    ...(options.customerMetadataKey ? { customerMetadataKey: options.customerMetadataKey } : {}),
    ...(options.stripeTimeoutMs ? { timeoutMs: options.stripeTimeoutMs } : {}),
  });
  return createGate({ ...options, processor });
}
