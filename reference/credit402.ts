// One-call set-up: a gate with the Stripe processor, from the seed's configuration fields.
import { Credit402ConfigError } from './config/config-error.ts';
import { createGate, type Gate, type GateOptions } from './gate/index.ts';
import { publishableKeyMode, secretKeyMode } from './config/stripe-keys.ts';
import { assertServerSecretNotPublic } from './config/production-guards.ts';
import { StripeProcessor, type StripeApiBase } from './processor/stripe-processor.ts';
import { createWebhookHandler, type WebhookHandler } from './webhooks/webhook-handler.ts';

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

/** Options of {@link createCredit402Webhooks}: the Stripe side of {@link Credit402Options} plus the signing secret. */
export interface Credit402WebhookOptions extends Pick<Credit402Options, 'stripeSecretKey' | 'stripeApi' | 'stripeTimeoutMs' | 'store' | 'onError'> {
  /** Signing secret of the webhook endpoint (`whsec_…`). */
  stripeWebhookSecret: string;
}

/** The Stripe side of the options: keys, API base, timeout, customer metadata key, webhook secret. */
export type StripeSide = Pick<Credit402Options, 'stripeSecretKey' | 'stripeApi' | 'customerMetadataKey' | 'stripeTimeoutMs'> & { stripeWebhookSecret?: string };

/** The Stripe processor of `options`: the one place it is built (the gate, the webhook engine, reconciliation). */
export function stripeProcessor(options: StripeSide): StripeProcessor {
  return new StripeProcessor({
    secretKey: options.stripeSecretKey,
    ...(options.stripeApi ? { api: options.stripeApi } : {}),
    ...(options.customerMetadataKey ? { customerMetadataKey: options.customerMetadataKey } : {}),
    ...(options.stripeTimeoutMs ? { timeoutMs: options.stripeTimeoutMs } : {}),
    webhookSecret: options.stripeWebhookSecret,
  });
}

/**
 * Builds a gate backed by Stripe; throws a Credit402ConfigError when the options are invalid, and ERR_SERVER_SECRET
 * when live keys come with a `serverSecret` published with credit402 (the README's example, say).
 */
export function createCredit402(options: Credit402Options): Gate {
  if (secretKeyMode(options.stripeSecretKey) !== publishableKeyMode(options.stripePublishableKey)) {
    throw new Credit402ConfigError('ERR_KEY_MODE_MISMATCH', 'stripeSecretKey and stripePublishableKey must both be test keys or both be live keys');
  }
  assertServerSecretNotPublic(options);
  return createGate({ ...options, processor: stripeProcessor(options) });
}

/**
 * Builds the Stripe webhook engine (mount it with `credit402WebhookFastify` or `credit402WebhookMiddleware`);
 * throws a Credit402ConfigError (`ERR_WEBHOOK_SECRET`, `ERR_STORE`, …) when the options are invalid.
 */
export function createCredit402Webhooks(options: Credit402WebhookOptions): WebhookHandler {
  if (options.stripeWebhookSecret === undefined) {
    throw new Credit402ConfigError('ERR_WEBHOOK_SECRET', 'stripeWebhookSecret is required for webhooks (whsec_…)');
  }
  const processor = stripeProcessor(options);
  return createWebhookHandler({ store: options.store, processor, ...(options.onError ? { onError: options.onError } : {}) });
}
