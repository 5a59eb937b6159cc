// The Stripe processor: the only module that imports `stripe`; maps Stripe errors to protocol errors.
import Stripe from 'stripe';
import { DEFAULT_CUSTOMER_METADATA_KEY, MESSAGES } from '../protocol/constants.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { secretKeyMode } from '../config/stripe-keys.ts';
import {
  PaymentError,
  WebhookSignatureError,
  type ChargeRequest,
  type ChargeResult,
  type Processor,
  type ProcessorEvent,
  type RetrievedCharge,
  type RetrievedDispute,
  type RetrievedPaymentIntent,
  type SucceededTopUp,
} from './processor.ts';
import { mappingErrors } from './mapped-errors.ts';
import { normalizeStripeEvent } from './stripe-events.ts';
import { readTopUp } from './top-up-metadata.ts';

/** How far a webhook signature's timestamp may be from the server's clock, either way (CR-14.2). */
const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Where the Stripe API is reached; defaults to api.stripe.com over HTTPS. */
export interface StripeApiBase {
  host: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/** The {@link StripeApiBase} of a URL such as `http://127.0.0.1:12111` (the port defaults to the protocol's). */
export function stripeApiBase(url: string | URL): StripeApiBase {
  const api = new URL(url);
  const protocol = api.protocol === 'https:' ? 'https' : 'http';
  return { host: api.hostname, port: Number(api.port || (protocol === 'https' ? 443 : 80)), protocol };
}

/** Options of {@link StripeProcessor}. */
export interface StripeProcessorOptions {
  secretKey: string;
  /** Point the SDK elsewhere (the emulator, stripe-mock). */
  api?: StripeApiBase;
  /** Customer metadata key carrying the client id; default `credit402_client_id`. */
  customerMetadataKey?: string;
  /** Per-request timeout in milliseconds; default 20000. */
  timeoutMs?: number;
  /** SDK network retries (each carries the same idempotency key); default 0. The SDK retries a dropped connection once more by itself. */
  maxNetworkRetries?: number;
  /** Quotes of the customer search query: `single` (default) `metadata['k']:'v'`, or `double` `metadata["k"]:"v"`. */
  customerSearchQuote?: 'single' | 'double';
  /** Signing secret of the webhook endpoint (`whsec_…`); needed by {@link StripeProcessor.parseWebhookEvent}. */
  webhookSecret?: string;
}

const METADATA_KEY = /^[A-Za-z0-9_]{1,40}$/;
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9_+/=]+$/;

/** Throws ERR_WEBHOOK_SECRET unless `secret` looks like a Stripe webhook signing secret. */
export function assertWebhookSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || !WEBHOOK_SECRET.test(secret)) {
    throw new Credit402ConfigError('ERR_WEBHOOK_SECRET', 'stripeWebhookSecret must be the endpoint signing secret, whsec_…');
  }
}

/** Maps whatever the SDK threw to a PaymentError: card errors are `card_declined`, the rest `payment_failed`. */
export function toPaymentError(error: unknown): PaymentError {
  if (error instanceof Stripe.errors.StripeCardError) {
    return new PaymentError('card_declined', error.message, { cause: error });
  }
  const message = error instanceof Error && error.message ? error.message : MESSAGES.PAYMENT_FAILED;
  return new PaymentError('payment_failed', message, { cause: error });
}

/** Runs an SDK call; whatever it throws is thrown as {@link toPaymentError} maps it. */
const mapped = <T>(call: () => Promise<T>): Promise<T> => mappingErrors(call, toPaymentError);

/** Ids a retrieval may put in a URL path; anything else cannot name an object (and could name another URL). */
const OBJECT_ID = /^[A-Za-z0-9_]{1,255}$/;

/** Retrieves an object by id; null when Stripe says there is none (404), other failures as thrown. */
async function retrieved<T>(id: string, call: () => Promise<T>): Promise<T | null> {
  if (!OBJECT_ID.test(id)) return null;
  try {
    return await call();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null;
    throw error;
  }
}

/** A non-negative integer amount, or 0 when the field is missing or malformed. */
const cents = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);

/** The id of a field that may be expanded into an object; null when there is none. */
function idOf(value: string | { id: string } | null | undefined): string | null {
  const id = typeof value === 'string' ? value : value?.id;
  return typeof id === 'string' && id !== '' ? id : null;
}

/** Default of {@link StripeProcessorOptions.timeoutMs}: 20 s per request. */
const DEFAULT_TIMEOUT_MS = 20_000;

/** The Stripe requests of one payment: the customer search, the customer's creation, the PaymentIntent. */
const REQUESTS_PER_PAYMENT = 3;

/**
 * The longest one Stripe request can take with the SDK's retries: its attempts (`maxNetworkRetries` more, and at least
 * one more since the SDK retries a closed connection even without retries) each up to `timeoutMs`, and the SDK's pause
 * before each retry (0.5 s doubling from the third, at most 5 s: stripe-node's RequestSender).
 */
export function longestStripeRequestMs(timeoutMs: number, maxNetworkRetries: number): number {
  const retries = Math.max(1, maxNetworkRetries);
  let total = (retries + 1) * timeoutMs;
  for (let done = 0; done < retries; done++) total += Math.max(500, Math.min(500 * 2 ** (done - 1), 5_000));
  return total;
}

/** A {@link Processor} backed by the official Stripe SDK. */
export class StripeProcessor implements Processor {
  /** The longest a payment's requests (customer search and creation, PaymentIntent) can take, retries included: the payment lock's lease is derived from it. */
  readonly longestPaymentMs: number;
  readonly #stripe: Stripe;
  readonly #metadataKey: string;
  readonly #quote: "'" | '"';
  readonly #webhookSecret: string | undefined;

  constructor(options: StripeProcessorOptions) {
    secretKeyMode(options.secretKey);
    this.#metadataKey = options.customerMetadataKey ?? DEFAULT_CUSTOMER_METADATA_KEY;
    if (!METADATA_KEY.test(this.#metadataKey)) {
      throw new Credit402ConfigError('ERR_CUSTOMER_METADATA_KEY', 'customerMetadataKey must be 1 to 40 letters, digits or underscores');
    }
    if (options.customerSearchQuote !== undefined && options.customerSearchQuote !== 'single' && options.customerSearchQuote !== 'double') {
      throw new Credit402ConfigError('ERR_PROCESSOR', "customerSearchQuote must be 'single' or 'double'");
    }
    this.#quote = options.customerSearchQuote === 'double' ? '"' : "'";
    if (options.webhookSecret !== undefined) assertWebhookSecret(options.webhookSecret);
    this.#webhookSecret = options.webhookSecret;
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxNetworkRetries = options.maxNetworkRetries ?? 0;
    this.longestPaymentMs = REQUESTS_PER_PAYMENT * longestStripeRequestMs(timeout, maxNetworkRetries);
    this.#stripe = new Stripe(options.secretKey, {
      ...(options.api ?? {}),
      timeout,
      maxNetworkRetries,
      telemetry: false,
      appInfo: { name: 'credit402' },
    });
  }

  async getCardFingerprint(paymentMethodId: string): Promise<string> {
    const method = await mapped(() => this.#stripe.paymentMethods.retrieve(paymentMethodId));
    const fingerprint = method.card?.fingerprint;
    if (!fingerprint) {
      throw new PaymentError('payment_failed', `Payment method ${paymentMethodId} is not a card with a fingerprint`);
    }
    return fingerprint;
  }

  /** The search query of CR-7.19 for `clientId`, in the configured quotes. */
  customerQuery(clientId: string): string {
    const q = this.#quote;
    return `metadata[${q}${this.#metadataKey}${q}]:${q}${clientId}${q}`;
  }

  async findOrCreateCustomer(clientId: string, paymentMethodId: string): Promise<string> {
    const found = await mapped(() => this.#stripe.customers.search({ query: this.customerQuery(clientId), limit: 1 }));
    const existing = found.data[0];
    if (existing) return existing.id;
    const created = await mapped(() =>
      this.#stripe.customers.create(
        { payment_method: paymentMethodId, metadata: { [this.#metadataKey]: clientId } },
        { idempotencyKey: `credit402-customer-${clientId}-${paymentMethodId}` },
      ),
    );
    return created.id;
  }

  /** Creates and confirms a PaymentIntent; the charge succeeded exactly when its status is `succeeded`, otherwise that status is the reason. */
  async charge(request: ChargeRequest): Promise<ChargeResult> {
    const intent = await mapped(() =>
      this.#stripe.paymentIntents.create(
        {
          amount: request.amountCents,
          currency: request.currency,
          customer: request.customerId,
          payment_method: request.paymentMethodId,
          description: request.description,
          metadata: request.metadata,
          confirm: true,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        },
        { idempotencyKey: request.idempotencyKey },
      ),
    );
    return intent.status === 'succeeded' ? { id: intent.id, succeeded: true } : { id: intent.id, succeeded: false, reason: intent.status };
  }

  /** Verifies the `Stripe-Signature` header with the SDK (5 minutes old at most) and no more than 5 minutes ahead; normalizes the event. */
  async parseWebhookEvent(rawBody: Buffer | string, signature: string | undefined): Promise<ProcessorEvent> {
    if (this.#webhookSecret === undefined) throw new Error('StripeProcessor: no webhookSecret configured');
    if (!signature) throw new WebhookSignatureError('missing Stripe-Signature header');
    let event: Stripe.Event;
    try {
      // The async form: the SDK's fetch build (Bun, Deno, workerd) verifies with Web Crypto, which has no synchronous form.
      event = await this.#stripe.webhooks.constructEventAsync(rawBody, signature, this.#webhookSecret);
    } catch (error) {
      throw new WebhookSignatureError(error instanceof Error ? error.message : 'invalid signature', { cause: error });
    }
    // The SDK bounds only the age; a timestamp far ahead would stay replayable until it is (CR-14.2).
    const timestamp = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
    if (timestamp - Math.floor(Date.now() / 1000) > WEBHOOK_TOLERANCE_SECONDS) {
      throw new WebhookSignatureError(`the signature's timestamp is more than ${WEBHOOK_TOLERANCE_SECONDS} s ahead of this server's clock`);
    }
    return normalizeStripeEvent(event);
  }

  async retrievePaymentIntent(id: string): Promise<RetrievedPaymentIntent | null> {
    const intent = await retrieved(id, () => this.#stripe.paymentIntents.retrieve(id));
    if (!intent) return null;
    return { id: intent.id, status: intent.status, amountReceivedCents: cents(intent.amount_received), currency: intent.currency, metadata: { ...(intent.metadata ?? {}) } };
  }

  async retrieveCharge(id: string): Promise<RetrievedCharge | null> {
    const charge = await retrieved(id, () => this.#stripe.charges.retrieve(id));
    if (!charge) return null;
    return { id: charge.id, paymentIntentId: idOf(charge.payment_intent), amountRefundedCents: cents(charge.amount_refunded) };
  }

  async retrieveDispute(id: string): Promise<RetrievedDispute | null> {
    const dispute = await retrieved(id, () => this.#stripe.disputes.retrieve(id));
    if (!dispute) return null;
    return { id: dispute.id, paymentIntentId: idOf(dispute.payment_intent), amountCents: cents(dispute.amount) };
  }

  /** Lists PaymentIntents newest first through every page, stopping at the first one older than `since`. */
  async *listSucceededTopUps(options: { since?: Date } = {}): AsyncIterable<SucceededTopUp> {
    const since = options.since === undefined ? undefined : Math.floor(options.since.getTime() / 1000);
    for await (const intent of this.#stripe.paymentIntents.list({ limit: 100 })) {
      if (since !== undefined && intent.created < since) return;
      if (intent.status !== 'succeeded') continue;
      const topUp = readTopUp({ metadata: intent.metadata, amountReceivedCents: intent.amount_received, currency: intent.currency });
      if (typeof topUp !== 'string') yield { paymentIntentId: intent.id, created: intent.created, ...topUp };
    }
  }
}
