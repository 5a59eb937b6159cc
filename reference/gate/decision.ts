// What the gate decides for one request; adapters only apply it. Every decision is a deep-frozen, read-only value.
import type { GatedRoute } from './context.ts';
import type { PaymentResponse } from '../protocol/types.ts';

/** The request as the gate needs it: adapters copy these values and nothing else. */
export interface GateRequest {
  /** Request method as received (HTTP methods are case-sensitive). */
  method: string;
  /** Request target as received (path plus optional query string). */
  url: string;
  /** Raw value(s) of the `payment` header, when present. */
  paymentHeader: string | readonly string[] | undefined;
  /**
   * Address of the client as the adapter sees it (the socket's peer, or the framework's notion of the client IP);
   * used only by the `newPaymentRateLimit` option. Optional: requests without one share one per-address bucket.
   */
  clientAddress?: string | undefined;
  /** The `origin` request header, for the optional CORS policy (`cors` option). */
  origin?: string | undefined;
  /**
   * The gated route the application's router matched, from `gate.defineRoute` or `gate.routes` (CR-4.9, CR-4.15):
   * the gate prices it instead of matching the path against its table. Leave it undefined for the gate to match.
   */
  route?: GatedRoute | undefined;
}

/** The route is not gated: call the handler and add nothing. */
export interface PassDecision {
  readonly action: 'pass';
}

/**
 * How the answer to a served request ended, as the adapter saw it: the status it was sent with, or, for an
 * adapter that calls the handler itself, that the handler threw; or, for a gateway, that the upstream failed or
 * timed out (`upstreamFailed`, the gateway answered 502/504 itself): its price is given back whatever
 * `refundOnHandlerError` says (spec CR-15.3).
 */
export type ServeOutcome = { readonly status: number } | { readonly threw: true } | { readonly status: number; readonly upstreamFailed: true };

/** The request is paid: add `headers` to the response, call the handler, then report the outcome with `settle`. */
export interface ServeDecision {
  readonly action: 'serve';
  readonly headers: Readonly<Record<string, string>>;
  readonly payment: Readonly<PaymentResponse>;
  /**
   * Adapters call it once the answer is finished, with its final status (or `{ threw: true }`), whatever the status.
   * The engine decides what follows: with `refundOnHandlerError`, an outcome that is 5xx or threw gives the deducted
   * price back to the balance; an `upstreamFailed` outcome always does. Only the first call counts. It never rejects: a store failure goes to `onError`.
   */
  readonly settle: (outcome: ServeOutcome) => Promise<void>;
}

/** Answer now, without calling the handler. */
export interface RespondDecision {
  readonly action: 'respond';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON body (deep-frozen). */
  readonly body: unknown;
  /**
   * What the answer is, in one word: `challenge` (the plain challenge), `insufficient_credits` (the insufficient-credits
   * challenge), the error code of a payment error (`invalid_payment`, `card_declined`, … CR-8.3), `service_unavailable`,
   * `rate_limited`, `ambiguous_request_target` or `preflight` (a CORS preflight). For logs and metrics; adapters need only
   * `status`, `headers` and `body`.
   */
  readonly code: string;
}

/** A decision of the gate: a read-only value, deep-frozen when built; a prebuilt challenge is shared by every request. */
export type GateDecision = PassDecision | ServeDecision | RespondDecision;
