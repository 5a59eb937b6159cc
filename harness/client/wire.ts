// The protocol's wire values as the kit's scripted server writes and reads them: header names, fixed texts, base64 JSON.

/** The request header that carries the payment payload (seed §2 Payment header). */
export const PAYMENT_HEADER = 'payment';
/** The response header of a challenge (seed §2 PaymentRequiredResponse). */
export const PAYMENT_REQUIRED_HEADER = 'payment-required';
/** The response header of a served request (seed §2 PaymentResponse). */
export const PAYMENT_RESPONSE_HEADER = 'payment-response';

/** The message of an undecodable `payment` header, fixed by the seed (§7 Errors) and CR-3.5. */
export const MALFORMED_MESSAGE = 'Malformed payment header';
/** The `payment_failed` message when the processor gave none (seed §7 Errors, CR-13.35). */
export const PROCESSING_FAILED_MESSAGE = 'Payment processing failed';
/** The `message` of the kit's insufficient-credits challenges (CR-5.5: any non-empty text). */
export const INSUFFICIENT_MESSAGE = 'Insufficient credits for this request';

/** A clientId as the spec derives it: 64 lowercase hex digits (CR-7.3). */
export const CLIENT_ID = /^[0-9a-f]{64}$/;

/** Base64 (standard alphabet, padded) of the compact JSON text of `value`. */
export function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** A decoded `payment` payload, or why it is malformed. */
export type DecodedPayment = { ok: true; payload: Record<string, unknown> } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a `payment` value as a seed-following server does: base64 of either alphabet, padded or not (CR-3.4), UTF-8 JSON of an object. */
export function decodePayment(raw: string): DecodedPayment {
  const compact = raw.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) return { ok: false, reason: 'not base64' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(Buffer.from(compact, 'base64')));
  } catch {
    return { ok: false, reason: 'not UTF-8 JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'not a JSON object' };
  return { ok: true, payload: parsed as Record<string, unknown> };
}
