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
  // Node's base64 decoder reads the URL-safe alphabet too; the input is already checked to be one of the two.
  const bytes = Buffer.from(body, 'base64');
  try {
    return { ok: true, value: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return { ok: false };
  }
}
