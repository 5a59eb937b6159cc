// Validation of the decoded `payment` header: every field checked, nothing cast.
import { MESSAGES, PROTOCOL_VERSION } from './constants.ts';
import { decodeBase64Json } from './base64-json.ts';
import type { PaymentPayload } from './types.ts';

export type PayloadResult = { ok: true; payload: PaymentPayload } | { ok: false; message: string };

/** A request id (CR-3.7, CR-6.9): a UUID or any other short token of URL-safe characters. */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

const invalid = (message: string): PayloadResult => ({ ok: false, message });

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Checks a decoded JSON value against the payment payload's field rules; unknown fields are ignored. */
export function validatePaymentPayload(value: unknown): PayloadResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('Invalid payment header: payload must be a JSON object');
  }
  const fields = value as Record<string, unknown>;
  const payload: PaymentPayload = {};
  if (fields.stripe402Version !== undefined) {
    if (fields.stripe402Version !== PROTOCOL_VERSION) {
      return invalid(`Invalid payment header: stripe402Version must be ${PROTOCOL_VERSION}`);
    }
    payload.stripe402Version = PROTOCOL_VERSION;
  }
  if (fields.clientId !== undefined) {
    if (!isNonEmptyString(fields.clientId)) return invalid('Invalid payment header: clientId must be a non-empty string');
    payload.clientId = fields.clientId;
  }
  if (fields.paymentMethodId !== undefined) {
    if (!isNonEmptyString(fields.paymentMethodId)) {
      return invalid('Invalid payment header: paymentMethodId must be a non-empty string');
    }
    payload.paymentMethodId = fields.paymentMethodId;
  }
  if (fields.topUpAmount !== undefined) {
    const topUp = fields.topUpAmount;
    if (typeof topUp !== 'number' || !Number.isSafeInteger(topUp) || topUp <= 0) {
      return invalid('Invalid payment header: topUpAmount must be a positive safe integer');
    }
    payload.topUpAmount = topUp;
  }
  if (fields.requestId !== undefined) {
    if (typeof fields.requestId !== 'string' || !REQUEST_ID.test(fields.requestId)) {
      return invalid('Invalid payment header: requestId must be 1 to 64 letters, digits, - or _');
    }
    payload.requestId = fields.requestId;
  }
  return { ok: true, payload };
}

/** Decodes and validates a raw `payment` header value. */
export function parsePaymentHeader(raw: string): PayloadResult {
  const decoded = decodeBase64Json(raw);
  if (!decoded.ok) return invalid(MESSAGES.MALFORMED_HEADER);
  return validatePaymentPayload(decoded.value);
}
