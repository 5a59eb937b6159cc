// The optional CORS policy of gated routes: browsers may send `payment` and read `payment-required` and `payment-response`.
import { Credit402ConfigError } from '../config/config-error.ts';
import type { GateDecision, RespondDecision } from './decision.ts';
import { deepFreeze } from './frozen.ts';
import { respond } from './responses.ts';

/** Option `cors` of the gate: which browser origins may call the gated routes. */
export interface CorsOptions {
  /** `*` for any origin, or the exact origins allowed (`https://app.example`). */
  origins: '*' | readonly string[];
  /** How long a browser may cache a preflight answer, in seconds; default 600. */
  maxAgeSeconds?: number;
}

/** The validated policy. */
export interface CorsPolicy {
  origins: '*' | ReadonlySet<string>;
  maxAgeSeconds: number;
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/;
const EXPOSED = 'payment-required, payment-response';

/** Validates the option at construction; undefined when CORS is off. Throws ERR_CORS naming the mistake. */
export function validateCors(value: unknown): CorsPolicy | undefined {
  if (value === undefined) return undefined;
  const fail = (message: string): never => {
    throw new Credit402ConfigError('ERR_CORS', `cors: ${message}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('must be an object { origins, maxAgeSeconds? }');
  const { origins, maxAgeSeconds = 600, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) fail(`unknown member ${Object.keys(rest).join(', ')}`);
  if (!Number.isSafeInteger(maxAgeSeconds) || (maxAgeSeconds as number) < 0 || (maxAgeSeconds as number) > 86_400) fail('maxAgeSeconds must be an integer from 0 to 86400');
  if (origins === '*') return { origins: '*', maxAgeSeconds: maxAgeSeconds as number };
  if (!Array.isArray(origins) || origins.length === 0) return fail('origins must be "*" or a non-empty list of origins');
  for (const origin of origins) {
    if (typeof origin !== 'string' || !ORIGIN.test(origin)) fail(`${JSON.stringify(origin)} is not an origin like "https://app.example" (lowercase scheme and host, no path)`);
  }
  return { origins: new Set(origins as string[]), maxAgeSeconds: maxAgeSeconds as number };
}

/** The `access-control-allow-origin` value for a request from `origin`, or undefined when the policy does not allow it. */
function allowedOrigin(policy: CorsPolicy, origin: string | undefined): string | undefined {
  if (policy.origins === '*') return '*';
  return origin !== undefined && policy.origins.has(origin) ? origin : undefined;
}

/** The headers every gated answer carries under the policy (a list of origins also varies on `origin`). */
function corsHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> {
  const allowed = allowedOrigin(policy, origin);
  const vary: Record<string, string> = policy.origins === '*' ? {} : { vary: 'payment, origin' };
  return allowed === undefined ? vary : { ...vary, 'access-control-allow-origin': allowed, 'access-control-expose-headers': EXPOSED };
}

/** The decision with the policy's headers added: a new deep-frozen value; the decision given (a shared challenge) is not changed. */
export function withCors(decision: GateDecision, policy: CorsPolicy, origin: string | undefined): GateDecision {
  if (decision.action === 'pass') return decision;
  return deepFreeze({ ...decision, headers: { ...decision.headers, ...corsHeaders(policy, origin) } });
}

/** The answer to a preflight (`OPTIONS`) of a gated path whose methods are `methods`: 204 with what may be sent (deep-frozen). */
export function preflight(policy: CorsPolicy, origin: string | undefined, methods: readonly string[]): RespondDecision {
  const allowed = allowedOrigin(policy, origin);
  const vary: Record<string, string> = policy.origins === '*' ? {} : { vary: 'origin' };
  if (allowed === undefined) return respond(204, vary, undefined, 'preflight');
  return respond(204, {
    ...vary,
    'access-control-allow-origin': allowed,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': 'payment, content-type',
    'access-control-max-age': String(policy.maxAgeSeconds),
  }, undefined, 'preflight');
}
