// Base64 JSON as the spec defines it: strict decoding of the target's headers (CR-3.2), encodings for the `payment` header (CR-3.4).

/**
 * The result of decoding a protocol response header. A value that is not strict (CR-3.2's strict part, CR-13.10) but
 * that some common base64 reading turns into a JSON object carries that object as `lenient`: the wire level reads it.
 */
export type Decoded = { ok: true; value: unknown } | { ok: false; reason: string; lenient?: Record<string, unknown> };

const STANDARD_PADDED = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a `payment-required` / `payment-response` value strictly per CR-3.2: standard alphabet, `=` padding,
 * canonical (zero unused bits), no whitespace, UTF-8 JSON text whose top level is an object.
 */
export function decodeStrict(value: string): Decoded {
  const strict = strictReading(value);
  if (strict.ok) return strict;
  const lenient = lenientReading(value);
  return lenient === undefined ? strict : { ...strict, lenient };
}

/** Any base64 reading (either alphabet, padded or not, whitespace ignored) of UTF-8 JSON whose top level is an object. */
function lenientReading(value: string): Record<string, unknown> | undefined {
  const compact = value.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined;
  try {
    const parsed: unknown = JSON.parse(utf8.decode(Buffer.from(compact, 'base64')));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function strictReading(value: string): Decoded {
  if (value === '') return { ok: false, reason: 'empty value' };
  if (!STANDARD_PADDED.test(value)) return { ok: false, reason: 'not the standard base64 alphabet with = padding (CR-3.2)' };
  if (value.length % 4 !== 0) return { ok: false, reason: `length ${value.length} is not a multiple of 4: missing or wrong = padding (CR-3.2)` };
  const bytes = Buffer.from(value, 'base64');
  if (bytes.toString('base64') !== value) return { ok: false, reason: 'not canonical base64 (non-zero unused bits or misplaced padding)' };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'decoded bytes are not UTF-8' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: `decoded text is not JSON: ${JSON.stringify(text.slice(0, 80))}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'decoded JSON is not an object' };
  return { ok: true, value: parsed };
}

/** The object a decoded header carries, strictly or only leniently (undefined when neither reading works). */
export function readable(decoded: Decoded | undefined): Record<string, unknown> | undefined {
  if (!decoded) return undefined;
  if (!decoded.ok) return decoded.lenient;
  const { value } = decoded;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** How the harness writes a `payment` header value (all accepted by CR-3.4). */
export type Encoding = 'standard' | 'unpadded' | 'url-safe' | 'url-safe unpadded' | 'mixed alphabets';

/** Base64 of `data` (UTF-8 text or bytes) in the given encoding; `mixed alphabets` needs both `+` and `/` in the standard form. */
export function encode(data: string | Uint8Array, encoding: Encoding = 'standard'): string {
  const standard = Buffer.from(data).toString('base64');
  switch (encoding) {
    case 'standard':
      return standard;
    case 'unpadded':
      return standard.replace(/=+$/, '');
    case 'url-safe':
      return standard.replace(/\+/g, '-').replace(/\//g, '_');
    case 'url-safe unpadded':
      return standard.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    case 'mixed alphabets':
      if (!standard.includes('+') || !standard.includes('/')) throw new Error(`cannot mix alphabets in ${standard}: it has no + or no /`);
      return standard.replace(/\+/g, '-');
  }
}

/** Best-effort reading of a `payment` value the harness sent, for transcripts only (never used to judge). */
export function describePayment(value: string): string {
  const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  try {
    return utf8.decode(bytes);
  } catch {
    return `<${bytes.length} bytes, not UTF-8>`;
  }
}
