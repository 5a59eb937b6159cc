// Wire types of the three protocol headers and of the route configuration.
import type { ErrorCode } from './constants.ts';

/** Decoded `payment` request header. */
export interface PaymentPayload {
  stripe402Version?: 1;
  clientId?: string;
  paymentMethodId?: string;
  topUpAmount?: number;
}

/** One accepted way to pay, inside a challenge. */
export interface PaymentRequirement {
  scheme: 'stripe';
  currency: string;
  amount: number;
  minTopUp: number;
  publishableKey: string;
  description?: string;
}

/** The 402 challenge, carried in the `payment-required` header and as the body. */
export interface PaymentRequiredResponse {
  stripe402Version: 1;
  resource: { url: string; description?: string };
  accepts: PaymentRequirement[];
  error?: 'insufficient_credits';
  message?: string;
}

/** Result of a payment: `payment-response` header on success, body on a payment error. */
export interface PaymentResponse {
  success: boolean;
  creditsRemaining: number;
  clientId: string;
  chargeId?: string;
  error?: string;
  errorCode?: ErrorCode;
}

/** Price and payment options of one gated route. */
export interface RouteConfig {
  amount: number;
  currency?: string;
  minTopUp?: number;
  maxTopUp?: number;
  description?: string;
}
