// Base64 JSON header encoding: standard padded base64 out; standard or URL-safe, padding optional, in.

const BASE64_INPUT = /^[A-Za-z0-9+/_-]*$/;
const EQUALS = 0x3d;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Encodes a value as JSON in standard, padded base64. */
export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/**
 * Decodes base64 (standard or URL-safe alphabet, padding optional) holding UTF-8 JSON.
 * Returns `{ ok: false }` for any other character, a bad length or padding, invalid UTF-8 or invalid JSON.
 */
export function decodeBase64Json(raw: string): { ok: true; value: unknown } | { ok: false } {
  let end = raw.length;
  if (raw.charCodeAt(end - 1) === EQUALS) end -= raw.charCodeAt(end - 2) === EQUALS ? 2 : 1;
  const body = end === raw.length ? raw : raw.slice(0, end);
  const padded = body.length !== raw.length;
  if (body.length === 0 || !BASE64_INPUT.test(body) || body.length % 4 === 1) return { ok: false };
  if (padded && raw.length % 4 !== 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(asciiText(body) ?? utf8.decode(Buffer.from(body, 'base64'))) };
  } catch {
    return { ok: false };
  }
}

/** A character over 0x7f (`atob`'s text holds 0x00–0xff only: one character per byte). */
const NON_ASCII = /[\x80-\xff]/;

/**
 * The text of checked base64 `body` when it is in the standard alphabet and decodes to ASCII bytes only (a header
 * as clients send it): `atob`'s Latin-1 reading of those bytes is then their UTF-8 text, with no Buffer and no
 * decoder. Undefined otherwise (URL-safe characters, which `atob` refuses, or a byte over 0x7f, which must be strict
 * UTF-8): the caller decodes the bytes. Node's base64 decoder reads the URL-safe alphabet too.
 */
function asciiText(body: string): string | undefined {
  if (body.includes('-') || body.includes('_')) return undefined;
  const text = atob(body);
  return NON_ASCII.test(text) ? undefined : text;
}
