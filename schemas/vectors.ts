// Typed view of schemas/vectors.json, the language-neutral test vectors (format in schemas/README.md).
import vectors from './vectors.json' with { type: 'json' };

/** Outcome of decoding and validating one `payment` header value. */
export type DecodeOutcome =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; errorCode: 'invalid_payment'; message: string | null; messageMustName: string | null };

/** The vectors, sections as documented in schemas/README.md. */
export interface Credit402Vectors {
  protocolVersion: 1;
  config: { stripePublishableKey: string; serverSecret: string; routes: Record<string, { amount: number; description?: string }> };
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
    trigger: { payment: string; processor?: string; store?: string };
    body: Record<string, unknown>;
    paymentRequired?: string;
  }>;
}

/** The parsed vectors file. */
export const credit402Vectors = vectors as Credit402Vectors;
