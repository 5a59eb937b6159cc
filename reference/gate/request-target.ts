// How the gate reads a request target (spec CR-4.2, CR-4.10): its request path and query, or why it is ambiguous.
import type { RespondDecision } from './decision.ts';
import { respond } from './responses.ts';

/** The `error` code of the answer to an ambiguous request target (CR-4.10). */
export const AMBIGUOUS_TARGET = 'ambiguous_request_target';

/** A request target as the gate reads it: the request path of CR-4.2 and the query, or the reason it is ambiguous. */
type TargetReading =
  | { ok: true; path: string; query: string }
  | { ok: false; reason: string };

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const VISIBLE_ASCII = /^[\x21-\x7e]*$/;
/** `scheme://authority` and the rest; the authority ends at the first `/` (the query is already cut off). */
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)(.*)$/s;

/**
 * Whether every `%` of `path` starts a percent-encoding (`%` and two hexadecimal digits) and the octets they encode
 * are UTF-8 (`%C3%A9` is, `%E3o`, `%FF`, `%zz` and a bare `%` are not): routers that decode the path or its
 * parameters (`decodeURIComponent`: Express, proxies) refuse the others, while WHATWG keeps them as they are.
 */
function wellFormedEncodings(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Decodes percent-encoded unreserved characters only (RFC 3986 §6.2.2.2): `/api/%77eather` is `/api/weather`. */
function decodeUnreserved(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : encoded;
  });
}

const SLASH = 0x2f;
const HASH = 0x23;
const QUESTION_MARK = 0x3f;
const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const DOT = 0x2e;

const ambiguous = (reason: string): TargetReading => ({ ok: false, reason });

/** The raw path of an origin-form or http(s) absolute-form target without its query, or why it is neither. */
function rawPathOf(beforeQuery: string): TargetReading {
  if (beforeQuery.startsWith('/')) return { ok: true, path: beforeQuery, query: '' };
  const absolute = ABSOLUTE_FORM.exec(beforeQuery);
  if (!absolute) return ambiguous('it is neither origin-form ("/path?query") nor absolute-form ("http://host/path?query")');
  const [, scheme = '', authority = '', rest = ''] = absolute;
  if (!/^https?$/i.test(scheme)) return ambiguous(`it is an absolute form of the scheme "${scheme}": only http and https targets are read`);
  if (authority === '') return ambiguous('it is an absolute form without a host');
  return { ok: true, path: rest === '' ? '/' : rest, query: '' };
}

/**
 * Reads a request target as the gate matches it (CR-4.2): the path without the query, only percent-encoded
 * unreserved characters decoded, and the query (`?…`, or empty). A target that URL parsers in common use read
 * differently is ambiguous (CR-4.10): a byte outside visible ASCII, a `#`, a `\` before the query, a form other
 * than origin-form, `*` and http(s) absolute-form with a host, a malformed percent-encoding in the path (a `%` without
 * two hexadecimal digits, octets that are not UTF-8), or a `.` or `..` path segment.
 */
export function readRequestTarget(target: string): TargetReading {
  return plainReading(target) ?? readAnyTarget(target);
}

/**
 * The reading of a plain origin-form target, in one pass over it: `/` first, visible ASCII only, no `#`, and no `\`,
 * `%` or `.` before the query, so its path is what precedes the query as it is (nothing to decode, no dot segment).
 * Undefined for any other target, which {@link readAnyTarget} reads (most paths a client sends are plain).
 */
function plainReading(target: string): TargetReading | undefined {
  if (target.charCodeAt(0) !== SLASH) return undefined;
  let queryAt = -1;
  for (let i = 1; i < target.length; i++) {
    const code = target.charCodeAt(i);
    if (code < 0x21 || code > 0x7e || code === HASH) return undefined;
    if (queryAt !== -1) continue;
    if (code === QUESTION_MARK) queryAt = i;
    else if (code === BACKSLASH || code === PERCENT || code === DOT) return undefined;
  }
  return queryAt === -1 ? { ok: true, path: target, query: '' } : { ok: true, path: target.slice(0, queryAt), query: target.slice(queryAt) };
}

/** {@link readRequestTarget} for any target. */
function readAnyTarget(target: string): TargetReading {
  if (target === '*') return { ok: true, path: '*', query: '' };
  if (!VISIBLE_ASCII.test(target)) return ambiguous('it contains a space, a control character or a non-ASCII character');
  if (target.includes('#')) return ambiguous('it contains "#": a request target carries no fragment, and parsers differ on where the path ends');
  const queryAt = target.indexOf('?');
  const beforeQuery = queryAt === -1 ? target : target.slice(0, queryAt);
  if (beforeQuery.includes('\\')) return ambiguous('it contains "\\" before the query, which URL parsers read as "/"');
  const raw = rawPathOf(beforeQuery);
  if (!raw.ok) return raw;
  if (!wellFormedEncodings(raw.path)) {
    return ambiguous('its path has a "%" that starts no percent-encoding, or percent-encodings that are not UTF-8, which routers refuse or read differently');
  }
  const path = decodeUnreserved(raw.path);
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) {
    return ambiguous('its path has a "." or ".." segment, which some routers remove');
  }
  return { ok: true, path, query: queryAt === -1 ? '' : target.slice(queryAt) };
}

/** The 400 answer to an ambiguous request target (CR-4.10): nothing is read, charged or deducted. */
export function ambiguousTarget(reason: string): RespondDecision {
  return respond(400, { 'content-type': 'application/json; charset=utf-8' }, { error: AMBIGUOUS_TARGET, message: `Ambiguous request target: ${reason}` }, AMBIGUOUS_TARGET);
}

/**
 * The request target to hand the application's router for a request the gate serves: the path the gate matched and
 * the query, in origin-form, so that the router reaches the handler of the route that was paid for
 * (`/api/%77eather` becomes `/api/weather`). Undefined for an ambiguous target.
 */
export function routerTarget(target: string): string | undefined {
  const reading = readRequestTarget(target);
  return reading.ok ? `${reading.path}${reading.query}` : undefined;
}
