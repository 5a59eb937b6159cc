// Configuration of the credit402 fetch wrapper and the shape of its payment callback.
import type { PaymentRequiredResponse, PaymentRequirement, PaymentResponse } from '../protocol/types.ts';
import type { ClientIdStorage } from './storage.ts';

/** What the callback is told when a request needs payment. */
export interface PaymentRequiredInfo {
  /** The challenge as a version-1 client reads it (unknown members and non-stripe schemes dropped). */
  challenge: PaymentRequiredResponse;
  /** The `stripe` payment requirement: price, minimum top-up, currency, publishable key. */
  accepts: PaymentRequirement;
  /**
   * The URL that answered the challenge: the request's, or the one a redirect within its origin led to (the client
   * never pays a challenge of another origin, CR-16.9).
   */
  url: string;
  /** `challenge` on a first request; `insufficient_credits` when the stored clientId's balance ran out. */
  reason: 'challenge' | 'insufficient_credits';
}

/** How to pay: a Stripe PaymentMethod id and, optionally, the units to top up (at least the challenge's minTopUp; default: minTopUp). */
export interface PaymentDecision {
  paymentMethodId: string;
  topUpAmount?: number;
}

/** Options of {@link createCredit402Fetch}. */
export interface Credit402FetchOptions {
  /**
   * Called at most once per call; resolve `null` to decline (the 402 answer is then returned). A `topUpAmount` below
   * the challenge's `minTopUp` throws Credit402TopUpError before anything is sent; omit it to top up `minTopUp`.
   */
  onPaymentRequired(info: PaymentRequiredInfo): Promise<PaymentDecision | null>;
  /** Where clientIds are kept, per origin; default: in memory. */
  storage?: ClientIdStorage;
  /** Largest single top-up this client pays, in units; a larger one throws Credit402SpendingLimitError. */
  maxTopUpPerPayment?: number;
  /**
   * Largest total of top-ups this fetch function sends over its life, in units. A top-up counts from the moment it is
   * sent, whatever the answer (a success with or without `chargeId`, `payment_failed`, a 503, a lost answer), unless the
   * answer proves nothing was charged: `card_declined`, `top_up_below_minimum` or `invalid_payment` (CR-16.11).
   */
  maxTopUpPerSession?: number;
  /**
   * Whether a call answered 503 `service_unavailable` sends its payload again, unchanged, after the answer's
   * `Retry-After` (at most 5 s): 1 (default) once per call, 0 never. Every payload carries a `requestId` that the retry
   * keeps, so a retry is never deducted twice (CR-6.9) nor charged twice; a request sent without a payload is not retried.
   */
  unavailableRetries?: number;
  /** The underlying fetch; default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A `fetch`-compatible function that pays credit402 challenges, with its session state. */
export interface Credit402Fetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The PaymentResponse of the most recently completed paid answer, if any. */
  getLastPayment(): PaymentResponse | undefined;
  /** Units of the top-ups sent through this function so far, as counted against `maxTopUpPerSession`. */
  getSessionSpending(): number;
}
