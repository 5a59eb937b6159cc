// Base64 JSON header encoding: standard padded base64 out; standard or URL-safe, padding optional, in.

const BASE64_INPUT = /^[A-Za-z0-9+/_-]*$/;
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
  const body = raw.replace(/={1,2}$/, '');
  const padded = body.length !== raw.length;
  if (body.length === 0 || !BASE64_INPUT.test(body) || body.length % 4 === 1) return { ok: false };
  if (padded && raw.length % 4 !== 0) return { ok: false };
  const bytes = Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  try {
    return { ok: true, value: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return { ok: false };
  }
}
