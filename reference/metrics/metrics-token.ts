// The bearer token of the metrics endpoint (`metricsToken`) of the reference server and the gateway: its form, and the constant-time check of a request's Authorization header.
import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 6750 b64token, 16 to 512 characters. */
const METRICS_TOKEN = /^[A-Za-z0-9\-._~+/]{16,512}=*$/;

/** What a metrics token must be, for error messages. */
export const METRICS_TOKEN_RULE = '16 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (then optional "="), as a bearer token is written';

/** Whether `value` has the form of a metrics token ({@link METRICS_TOKEN_RULE}). */
export function isMetricsToken(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 512 && METRICS_TOKEN.test(value);
}

/** Whether `authorization` is `Bearer <token>` (compared in constant time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (presented === undefined) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

/** The headers of the 401 answer to a request without the token. */
export const UNAUTHORIZED_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'www-authenticate': 'Bearer realm="metrics"',
  'cache-control': 'no-store',
  'content-type': 'text/plain; charset=utf-8',
});
