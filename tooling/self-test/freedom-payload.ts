// How the freedom target reads the `payment` header: the wire level's latitudes on decoding and validation (spec Appendix C, L-1 to L-12).

/** A payload member the freedom target reads; every other member, `stripe402Version` and `requestId` included, is ignored (L-10, L-11). */
export interface FreedomPayload {
  clientId?: string;
  paymentMethodId?: string;
  topUpAmount?: number;
}

/**
 * What the header says: no payment (`absent`), not base64 JSON (`malformed`), a JSON value the target cannot use
 * (`unusable`: not an object, or a member of the wrong type or value), a payload naming neither a clientId nor a
 * payment method (`neither`), or a payload.
 */
export type FreedomReading =
  | { kind: 'absent' }
  | { kind: 'malformed' }
  | { kind: 'unusable'; value: unknown }
  | { kind: 'neither' }
  | { kind: 'payload'; payload: FreedomPayload };

/** The standard alphabet and `=`: a value with any other character, URL-safe `-` and `_` included, is not base64 here (L-3). */
const STANDARD_ALPHABET_AND_PADDING = /^[A-Za-z0-9+/=]+$/;

/** A text decoder that replaces bytes that are not UTF-8 with U+FFFD instead of refusing them (L-4). */
const lenientUtf8 = new TextDecoder('utf-8');

const ABSENT: FreedomReading = Object.freeze({ kind: 'absent' });
const MALFORMED: FreedomReading = Object.freeze({ kind: 'malformed' });

/**
 * The value the target reads from the `payment` field lines as received: the first line alone when there are several
 * (L-5); an empty value is no header at all (L-1).
 */
export function paymentValue(lines: readonly string[]): string | undefined {
  const first = lines[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

/**
 * Decodes a value: the standard alphabet only (L-3), every `=` ignored wherever it stands (L-2), bytes that are not
 * UTF-8 replaced (L-4). What no base64 variant reads (another character, a body of 4n+1 characters) and text that is
 * not JSON stay malformed, as the wire level asks (CR-3.5).
 */
export function decodeLeniently(value: string): { ok: true; value: unknown } | { ok: false } {
  if (!STANDARD_ALPHABET_AND_PADDING.test(value)) return { ok: false };
  const body = value.replaceAll('=', '');
  if (body === '' || body.length % 4 === 1) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(lenientUtf8.decode(Buffer.from(body, 'base64'))) };
  } catch {
    return { ok: false };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * A top-up the target can use: a positive safe integer, or any number at or below 0, which the new-payment path then
 * answers `top_up_below_minimum` as the source does (L-9).
 */
const isTopUp = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && (value <= 0 || Number.isSafeInteger(value));

/**
 * The payload of a decoded JSON value: a value that is not an object, or a `clientId`, `paymentMethodId` or
 * `topUpAmount` of the wrong type or value, is `unusable` (L-7, L-8); one naming neither a clientId nor a payment
 * method is `neither` (L-12).
 */
export function readPayload(value: unknown): FreedomReading {
  if (!isObject(value)) return { kind: 'unusable', value };
  const { clientId, paymentMethodId, topUpAmount } = value;
  if (clientId !== undefined && !isNonEmptyString(clientId)) return { kind: 'unusable', value };
  if (paymentMethodId !== undefined && !isNonEmptyString(paymentMethodId)) return { kind: 'unusable', value };
  if (topUpAmount !== undefined && !isTopUp(topUpAmount)) return { kind: 'unusable', value };
  if (clientId === undefined && paymentMethodId === undefined) return { kind: 'neither' };
  const payload: FreedomPayload = {};
  if (clientId !== undefined) payload.clientId = clientId;
  if (paymentMethodId !== undefined) payload.paymentMethodId = paymentMethodId;
  if (topUpAmount !== undefined) payload.topUpAmount = topUpAmount;
  return { kind: 'payload', payload };
}

/** Reads the `payment` field lines of a request (empty when it has none). */
export function readFreedomPayment(lines: readonly string[]): FreedomReading {
  const value = paymentValue(lines);
  if (value === undefined) return ABSENT;
  const decoded = decodeLeniently(value);
  return decoded.ok ? readPayload(decoded.value) : MALFORMED;
}
