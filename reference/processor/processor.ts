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

/** Outcome of a charge the processor accepted (it may still not have succeeded). */
export interface ChargeResult {
  /** PaymentIntent id. */
  id: string;
  /** PaymentIntent status, `succeeded` when the money was taken. */
  status: string;
}

/** A processor failure already mapped to a protocol error code. */
export class PaymentError extends Error {
  readonly code: 'card_declined' | 'payment_failed';
  constructor(code: 'card_declined' | 'payment_failed', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PaymentError';
    this.code = code;
  }
}

/** The card processor. Every method rejects with a {@link PaymentError} on failure. */
export interface Processor {
  /** Resolves to the card fingerprint of the payment method; rejects when there is none. */
  getCardFingerprint(paymentMethodId: string): Promise<string>;
  /** Finds the customer whose metadata carries the client id, or creates it with the payment method. */
  findOrCreateCustomer(clientId: string, paymentMethodId: string): Promise<string>;
  /** Creates and confirms a PaymentIntent. */
  charge(request: ChargeRequest): Promise<ChargeResult>;
}
