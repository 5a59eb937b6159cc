// How the freedom target words and encodes its answers: the wire level's latitudes on challenges and headers (spec Appendix C, L-6, L-19, L-20).
import type { GateDecision } from 'credit402/gate';
import { HEADERS } from 'credit402/protocol';

/** Characters between two spaces of an encoded header value (the line length of MIME base64). */
const CHUNK = 76;

/**
 * Base64 of a JSON value as the wire level allows it (L-6): the URL-safe alphabet, no `=` padding, and a space after
 * every 76 characters (whitespace is strict, CR-13.10; a header value cannot carry line breaks).
 */
export function looseBase64Json(value: unknown): string {
  const encoded = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  return encoded.match(new RegExp(`.{1,${CHUNK}}`, 'g'))?.join(' ') ?? '';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` without its `description` member (when it is an object). */
function withoutDescription(value: unknown): unknown {
  if (!isObject(value)) return value;
  const { description: _description, ...rest } = value;
  return rest;
}

/** A challenge without `resource.description`, `accepts[].description` (L-19) and `message` (L-20). */
export function bareChallenge(challenge: Record<string, unknown>): Record<string, unknown> {
  const { message: _message, resource, accepts, ...rest } = challenge;
  return { ...rest, resource: withoutDescription(resource), accepts: Array.isArray(accepts) ? accepts.map(withoutDescription) : accepts };
}

/**
 * A decision of the reference gate as the freedom target gives it: challenges bare, and the `payment-required` and
 * `payment-response` headers encoded loosely.
 */
export function freedomAnswer(decision: GateDecision): GateDecision {
  if (decision.action === 'serve') {
    return { ...decision, headers: { ...decision.headers, [HEADERS.PAYMENT_RESPONSE]: looseBase64Json(decision.payment) } };
  }
  if (decision.action !== 'respond' || decision.headers[HEADERS.PAYMENT_REQUIRED] === undefined || !isObject(decision.body)) return decision;
  const body = bareChallenge(decision.body);
  return { ...decision, headers: { ...decision.headers, [HEADERS.PAYMENT_REQUIRED]: looseBase64Json(body) }, body };
}
