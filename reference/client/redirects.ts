// How the client follows a redirect itself, as fetch would, so that no payment material crosses to another origin.
import { HEADERS } from '../protocol/constants.ts';

/** The redirects fetch follows (Fetch standard, "redirect status"). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Fetch's limit on the redirects of one request. */
export const MAX_REDIRECTS = 20;
/** Headers describing a body, dropped with it when a redirect turns the request into a GET (Fetch standard). */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type'];
/** Credentials never sent to another origin: the `payment` header (CR-16.9) and those fetch itself drops. */
const CREDENTIAL_HEADERS = [HEADERS.PAYMENT, 'authorization', 'proxy-authorization', 'cookie'];

/** A request to send: the Request (its body unread) and the body bytes it carries. */
export interface Hop {
  request: Request;
  body: ArrayBuffer | undefined;
}

/** The origin (scheme, host and port) of `url`, the key of a kept clientId (CR-16.9). */
export const originOf = (url: string): string => new URL(url).origin;

/** Where `response` redirects `request` to; undefined when it is no redirect (or a redirect without a `Location`). */
export function redirectTarget(response: Response, request: Request): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get('location');
  if (location === null) return undefined;
  try {
    return new URL(location, request.url);
  } catch {
    throw new TypeError(`credit402: the redirect from ${request.url} has an invalid Location: ${location}`);
  }
}

/**
 * The request `hop` becomes when redirected to `target` by a `status` answer, with the method and body rules of fetch
 * (a 303, and a 301 or 302 of a POST, become a GET without a body). Towards another origin than `hop`'s it carries no
 * `payment` header and no credential (`authorization`, `proxy-authorization`, `cookie`).
 */
export function redirectedHop(hop: Hop, status: number, target: URL): Hop {
  const { request } = hop;
  const headers = new Headers(request.headers);
  const toGet = (status === 303 && request.method !== 'GET' && request.method !== 'HEAD') || ((status === 301 || status === 302) && request.method === 'POST');
  if (toGet) for (const name of BODY_HEADERS) headers.delete(name);
  if (target.origin !== originOf(request.url)) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  const body = toGet ? undefined : hop.body;
  const init: RequestInit = {
    method: toGet ? 'GET' : request.method,
    headers,
    body,
    redirect: request.redirect,
    signal: request.signal,
    credentials: request.credentials,
    cache: request.cache,
    referrerPolicy: request.referrerPolicy,
  };
  return { request: new Request(target, init), body };
}
