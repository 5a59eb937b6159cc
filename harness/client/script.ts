// What the scripted server does differently in one scenario: the knobs a step sets, all reset before each scenario.
import type { OriginName } from './ledger.ts';

/** The payment errors a scenario can make the server answer (seed §7 Errors). */
export const PAYMENT_ERROR_CODES = ['card_declined', 'payment_failed', 'invalid_payment', 'top_up_below_minimum'] as const;

/** One of {@link PAYMENT_ERROR_CODES}. */
export type PaymentErrorCode = (typeof PAYMENT_ERROR_CODES)[number];

/** Whether a knob applies to the next matching request only or to every one. */
export type Scope = 'next' | 'every';

/** The broken `payment-required` headers of CR-16.13 (every challenge of the scenario carries one). */
export const BROKEN_CHALLENGES = ['not base64', 'base64 of non-JSON', 'no publishableKey', 'no minTopUp', 'amount not a number', 'no stripe element'] as const;

/** The broken `payment-response` headers of CR-16.13 (on the 200 that answers the next charged request). */
export const BROKEN_PAYMENT_RESPONSES = ['not base64', 'clientId not 64 hex', 'success false'] as const;

/** One of {@link BROKEN_CHALLENGES}. */
export type BrokenChallenge = (typeof BROKEN_CHALLENGES)[number];
/** One of {@link BROKEN_PAYMENT_RESPONSES}. */
export type BrokenPaymentResponse = (typeof BROKEN_PAYMENT_RESPONSES)[number];

/** The knobs of one scenario; the empty script answers as a seed-following server does. */
export interface Script {
  /** Answer paid requests (with a paymentMethodId) with this payment error instead of paying. */
  paymentError?: { code: PaymentErrorCode; scope: Scope };
  /** Answer paid requests with a plain challenge again. */
  challengeAgain?: Scope;
  /** Answer gated requests 503 `service_unavailable`. */
  unavailable?: Scope;
  /** Every challenge carries this broken `payment-required` header. */
  brokenChallenge?: BrokenChallenge;
  /** The next charged request is served with this broken `payment-response` header. */
  brokenPaymentResponse?: BrokenPaymentResponse;
  /** Challenges list another scheme first and carry unknown members everywhere; PaymentResponses carry unknown members (CR-16.16). */
  forwardCompatible?: boolean;
  /** How long the charge step takes, in ms (so that concurrent first payments overlap, CR-16.8). */
  chargeDelayMs?: number;
  /**
   * Answer every request to a priced route of origin `from` that carries a `payment` header with a 307 redirect to the
   * same path and query under `to`, another origin's base URL (CR-16.9), before reading the payment.
   */
  redirectPaid?: { from: OriginName; to: string };
}
