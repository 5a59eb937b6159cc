// Wire types of the three protocol headers and of the route configuration.
// The JSDoc tags (@TJS-type, @minimum, @pattern, @TJS-if …) are the JSON Schema constraints: `npm run schemas`.
import type { ErrorCode } from './constants.ts';

/**
 * Decoded `payment` request header (CR-3.7). Members other than these are ignored (CR-3.9).
 * @additionalProperties true
 */
export interface PaymentPayload {
  /** Protocol version: absent means 1, any other value is invalid (CR-12.2). */
  stripe402Version?: 1;
  /**
   * Identifier returned by an earlier payment. Any non-empty string is valid here: one not shaped like a
   * derived clientId is an unknown client, not an invalid payload (CR-6.1).
   * @minLength 1
   */
  clientId?: string;
  /**
   * Processor PaymentMethod id to charge (CR-7.2).
   * @minLength 1
   */
  paymentMethodId?: string;
  /**
   * Units to charge and credit; defaults to the route's minTopUp (CR-3.7, CR-7.1).
   * @TJS-type integer
   * @minimum 1
   * @maximum 9007199254740991
   */
  topUpAmount?: number;
  /**
   * The client's id of this request, kept when retrying it (CR-6.9): a deduction is made at most once per
   * (clientId, requestId) within the target's window. 1 to 64 letters, digits, `-` or `_` (a UUID fits).
   * @pattern ^[A-Za-z0-9_-]{1,64}$
   */
  requestId?: string;
}

/**
 * One accepted way to pay, inside a challenge (CR-5.3).
 * @additionalProperties false
 */
export interface PaymentRequirement {
  /** Payment scheme; clients select the element whose scheme is `stripe` (CR-12.4). */
  scheme: 'stripe';
  /**
   * The route's currency, lowercase ISO 4217 (CR-2.13).
   * @pattern ^[a-z]{3}$
   */
  currency: string;
  /**
   * Price of one request in units (CR-2.2).
   * @TJS-type integer
   * @minimum 0
   * @maximum 9007199254740991
   */
  amount: number;
  /**
   * Smallest top-up accepted, in units; never above the largest charge (CR-2.14, CR-2.15).
   * @TJS-type integer
   * @minimum 1
   * @maximum 9999999900
   */
  minTopUp: number;
  /**
   * The processor publishable key clients tokenize cards with (CR-2.6).
   * @pattern ^pk_(test|live)_[A-Za-z0-9_]+$
   */
  publishableKey: string;
  /**
   * The route's description, when configured (CR-2.16).
   * @minLength 1
   */
  description?: string;
}

/**
 * The 402 challenge, carried in the `payment-required` header and as the body (CR-5.2–CR-5.6).
 * `error` and `message` come together: both on an insufficient-credits challenge, neither on a plain one.
 * @additionalProperties false
 * @TJS-dependencies {"error": ["message"], "message": ["error"]}
 */
export interface PaymentRequiredResponse {
  /** Protocol version (CR-12.1). */
  stripe402Version: 1;
  /**
   * The gated resource: the request path, never the query (CR-5.2).
   * @additionalProperties false
   */
  resource: {
    /**
     * The request path (route-key path grammar, CR-4.1).
     * @pattern ^/[\x21\x22\x24-\x3E\x40-\x7E]*$
     */
    url: string;
    /**
     * The route's description, when configured.
     * @minLength 1
     */
    description?: string;
  };
  /**
   * Exactly one payment requirement in version 1 (CR-5.2).
   * @minItems 1
   * @maxItems 1
   */
  accepts: PaymentRequirement[];
  /** Present only on the insufficient-credits challenge (CR-5.5, CR-8.8). */
  error?: 'insufficient_credits';
  /**
   * Human-readable reason, with `error` (CR-5.5).
   * @minLength 1
   */
  message?: string;
}

/**
 * Result of a payment: `payment-response` header on success, body on a payment error (CR-6.2, CR-7.13, CR-8.1, CR-8.2).
 * On success: a 64-hex clientId, `chargeId` only after a charge, no `error`/`errorCode`. On error: exactly
 * `success: false`, `creditsRemaining: 0`, `clientId: ""`, `error` and an `errorCode` other than `insufficient_credits`.
 * @additionalProperties false
 * @TJS-if {"properties": {"success": {"const": true}}}
 * @TJS-then {"properties": {"clientId": {"pattern": "^[0-9a-f]{64}$"}, "error": false, "errorCode": false}}
 * @TJS-else {"required": ["error", "errorCode"], "properties": {"creditsRemaining": {"const": 0}, "clientId": {"const": ""}, "chargeId": false, "errorCode": {"not": {"const": "insufficient_credits"}}}}
 */
export interface PaymentResponse {
  /** true on success, false on a payment error. */
  success: boolean;
  /**
   * Balance after the deduction, in units; 0 on error.
   * @TJS-type integer
   * @minimum 0
   * @maximum 9007199254740991
   */
  creditsRemaining: number;
  /**
   * The clientId (64 lowercase hex) on success; the empty string on error.
   * @pattern ^([0-9a-f]{64})?$
   */
  clientId: string;
  /**
   * PaymentIntent id; present only after a new charge (CR-7.13).
   * @minLength 1
   */
  chargeId?: string;
  /**
   * Human-readable message, on error.
   * @minLength 1
   */
  error?: string;
  /** Machine code, on error; clients branch on it (CR-8.3, CR-8.10). */
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
