// The payment processor contract used by the gate, and the protocol errors it raises.

/** What the gate asks the processor to charge (step 5.6 of the payment path). */
export interface ChargeRequest {
  /** Amount in the currency's minor unit (cents), already rounded up from units. */
  amountCents: number;
  currency: string;
  paymentMethodId: string;
  customerId: string;
  description: string;
  /** Idempotency key: a retry of the same top-up sends the same key. */
  idempotencyKey: string;
  /** Metadata stored on the PaymentIntent (client id, top-up units). */
  metadata: Record<string, string>;
}

/**
 * Outcome of a charge the processor accepted: `succeeded` when the money was taken (the gate then credits the
 * top-up), otherwise the gate answers `payment_failed` and credits nothing. `id` is the PaymentIntent id.
 */
export type ChargeResult =
  | { id: string; succeeded: true }
  /** `reason`: the processor's word for why no money was taken yet (Stripe: the PaymentIntent status, e.g. `requires_action`). */
  | { id: string; succeeded: false; reason: string };

/** A processor failure already mapped to a protocol error code. */
export class PaymentError extends Error {
  readonly code: 'card_declined' | 'payment_failed';
  constructor(code: 'card_declined' | 'payment_failed', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PaymentError';
    this.code = code;
  }
}

/** The client and units a top-up PaymentIntent carries in its metadata (CR-7.17), and the currency it was charged in (CR-6.8). */
export interface TopUpMetadata {
  clientId: string;
  units: number;
  /** The PaymentIntent's currency, lowercase: the balance the top-up credits. */
  currency: string;
  /**
   * The store id the top-up was charged under (metadata `credit402_store_id`, CR-14.13): credited only by a store that
   * still holds it. Absent on PaymentIntents made before the gate wrote it, which are credited as before.
   */
  storeId?: string;
}

/** A succeeded top-up PaymentIntent, as reconciliation lists them. */
export interface SucceededTopUp extends TopUpMetadata {
  paymentIntentId: string;
  /** Creation time, unix seconds. */
  created: number;
}

/**
 * A verified processor event, reduced to what credit402 acts on. Amounts are the processor's minor
 * units. `topUp` is null when the PaymentIntent is not a credit402 top-up, or not one that can be
 * credited (`ignoredBecause` says why).
 */
export type ProcessorEvent =
  | { id: string; type: 'payment_intent.succeeded'; paymentIntentId: string; topUp: TopUpMetadata | null; ignoredBecause?: string }
  | { id: string; type: 'charge.refunded'; paymentIntentId: string | null; chargeId: string; amountRefundedCents: number }
  | { id: string; type: 'charge.dispute.created'; paymentIntentId: string | null; disputeId: string; amountCents: number }
  | { id: string; type: 'other'; processorType: string };

/** A PaymentIntent as the processor returns it, reduced to what crediting reads (CR-14.3). */
export interface RetrievedPaymentIntent {
  id: string;
  status: string;
  /** Minor units received; 0 when none. */
  amountReceivedCents: number;
  /** The currency charged, as the processor spells it (lowercase for Stripe). */
  currency: string;
  metadata: Record<string, string>;
}

/** A charge as the processor returns it, reduced to what a refund reads (CR-14.4). */
export interface RetrievedCharge {
  id: string;
  /** The PaymentIntent the charge belongs to, or null for a charge without one. */
  paymentIntentId: string | null;
  /** Cumulative minor units refunded. */
  amountRefundedCents: number;
}

/** A dispute as the processor returns it, reduced to what a dispute reads (CR-14.4). */
export interface RetrievedDispute {
  id: string;
  /** The PaymentIntent of the disputed charge, or null for a charge without one. */
  paymentIntentId: string | null;
  /** Disputed minor units. */
  amountCents: number;
}

/** A webhook whose signature is missing, malformed, wrong or too old. */
export class WebhookSignatureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookSignatureError';
  }
}

/** The card processor. Every payment method rejects with a {@link PaymentError} on failure. */
export interface Processor {
  /** Resolves to the card fingerprint of the payment method; rejects when there is none. */
  getCardFingerprint(paymentMethodId: string): Promise<string>;
  /** Finds the customer whose metadata carries the client id, or creates it with the payment method. */
  findOrCreateCustomer(clientId: string, paymentMethodId: string): Promise<string>;
  /** Creates and confirms a PaymentIntent. */
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /**
   * Optional: the longest time, in ms, that {@link findOrCreateCustomer} then {@link charge} can take before they
   * settle: each request's timeout times its attempts, with the pauses between them. The gate derives the default
   * lease of its per-client payment lock from it (`lockTtlMs`), so that a lease whose holder died frees the card as soon
   * as no payment can still be running under it. A positive integer.
   */
  readonly longestPaymentMs?: number;
  /**
   * Optional (webhooks): verifies a webhook's signature over the raw request body and normalizes the
   * event as its body tells it (which the webhook engine then checks against the retrieved objects).
   * Rejects with a {@link WebhookSignatureError} when the signature does not verify.
   */
  parseWebhookEvent?(rawBody: Buffer | string, signature: string | undefined): Promise<ProcessorEvent>;
  /**
   * Optional (webhooks): the PaymentIntent, charge or dispute as the processor has it now, which the webhook engine
   * acts on instead of the event body (CR-14.3, CR-14.4). Resolve to null when the processor has no such object;
   * reject (any error) when it could not be asked, so that the event is delivered again.
   */
  retrievePaymentIntent?(id: string): Promise<RetrievedPaymentIntent | null>;
  retrieveCharge?(id: string): Promise<RetrievedCharge | null>;
  retrieveDispute?(id: string): Promise<RetrievedDispute | null>;
  /**
   * Optional (reconciliation): the succeeded PaymentIntents carrying valid top-up metadata, newest first,
   * created at or after `since` when given, across every page.
   */
  listSucceededTopUps?(options?: { since?: Date }): AsyncIterable<SucceededTopUp>;
}
