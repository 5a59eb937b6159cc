// Typed view of schemas/vectors.json, the language-neutral test vectors (format in schemas/README.md).
import vectors from './vectors.json' with { type: 'json' };

/** Outcome of decoding and validating one `payment` header value. */
export type DecodeOutcome =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; errorCode: 'invalid_payment'; message: string | null; messageMustName: string | null };

/** How the processor answers the one request a `processor` trigger names; every other request is answered normally. */
export type ProcessorAnswer =
  /** A Stripe card error (HTTP 402, `type: card_error`) with this message. */
  | { kind: 'card_error'; message: string }
  /** Any other Stripe error answer with this HTTP status and message. */
  | { kind: 'error'; status: number; message: string }
  /** A PaymentIntent in this status (the creation itself succeeds). */
  | { kind: 'payment_intent'; status: string }
  /** No answer at all: a timeout, or a connection refused, reset or closed before the answer was complete. */
  | { kind: 'none' };

/**
 * What makes the target give an error answer. `payment` is always the header sent to the `config` route and `json`
 * its decoded text when it has one; the other members say which condition to set up, by `kind`:
 * - `header`: the header itself is malformed; `payload`: the decoded payload is invalid or out of range;
 * - `balance`: the payload's clientId has this balance before the request (`null`: no client record);
 * - `processor`: the processor answers `processor.request` (`METHOD /v1/…`, Stripe's API) with `processor.answer`;
 * - `store`: the store fails at the step of the requirement `store.failsAt` (`operation`: the reference store
 *   contract's method that fails there);
 * - `lease`: another payment of the same card holds the card's payment lease longer than the target waits (CR-14.7).
 */
export type ErrorTrigger =
  | { kind: 'header'; payment: string }
  | { kind: 'payload'; payment: string; json: string }
  | { kind: 'balance'; payment: string; json: string; balance: number | null }
  | { kind: 'processor'; payment: string; json: string; processor: { request: string; answer: ProcessorAnswer } }
  | { kind: 'store'; payment: string; json: string; store: { failsAt: string; operation: 'deductBalance' | 'creditTopUp' } }
  | { kind: 'lease'; payment: string; json: string; lease: { heldByAnotherPayment: true } };

/** The kinds of {@link ErrorTrigger}. */
export const TRIGGER_KINDS = ['header', 'payload', 'balance', 'processor', 'store', 'lease'] as const;

/** A route's effective configuration (CR-2.20) in the `routeConfig` vectors. */
export interface EffectiveRoute {
  amount: number;
  currency: string;
  minTopUp: number;
  maxTopUp: number;
  description?: string;
}

/** The vectors, sections as documented in schemas/README.md. */
export interface Credit402Vectors {
  protocolVersion: 1;
  config: {
    stripePublishableKey: string;
    serverSecret: string;
    routes: Record<string, { amount: number; description?: string }>;
    /** The card fingerprint the processor reports for every PaymentMethod unless a trigger says otherwise. */
    cardFingerprint: string;
    /** The id of the PaymentIntent the processor creates. */
    paymentIntentId: string;
  };
  encode: Array<{ name: string; json: string; base64: string }>;
  decode: Array<{ name: string; input: string; expected: DecodeOutcome; json?: string | null }>;
  clientId: Array<{ name: string; fingerprint: string; serverSecret: string; clientId: string }>;
  unitsToMinor: { cases: Array<{ units: number; minor: number }>; outOfDomain: number[] };
  errorAnswers: Array<{
    name: string;
    errorCode: string;
    status: 402 | 503;
    carriedIn: 'body' | 'challenge';
    headers?: Record<string, string>;
    messageIsNormative: boolean;
    requirements: string[];
    trigger: ErrorTrigger;
    body: Record<string, unknown>;
    paymentRequired?: string;
  }>;
  routing: {
    routes: Record<string, { amount: number }>;
    cases: Array<{
      name: string;
      method: string;
      /** The request target as sent: origin form, or absolute form. */
      target: string;
      expected: { gated: true; routeKey: string; resourceUrl: string } | { gated: false };
    }>;
  };
  serverSecret: Array<{ name: string; serverSecret: string; utf8Bytes: number; valid: boolean }>;
  routeConfig: Array<{
    name: string;
    /** The `routes` map as a JSON text: the spelling of its numbers is the point. */
    json: string;
    expected: { ok: true; routes: Record<string, EffectiveRoute> } | { ok: false; code: string };
  }>;
}

/** The parsed vectors file. */
export const credit402Vectors = vectors as Credit402Vectors;
