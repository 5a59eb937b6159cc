// The reference server's demo handlers: every route answers a small JSON body naming itself and counts its runs.
import { compareRouteSpecificity, parseRoutePattern, type RouteSegment } from '../gate/index.ts';
import type { PaymentResponse } from '../protocol/types.ts';
import type { WebhookHandler } from '../webhooks/webhook-handler.ts';
import type { ConformanceControl } from '../conformance-control/conformance-control.ts';
import { HANDLED_PATH, type HandlerRuns } from '../conformance-control/handler-runs.ts';
import type { ServerLog } from '../compose/server-log.ts';
import type { TrustProxy } from '../adapters/client-address.ts';

/** The webhook endpoint an app mounts: the engine and its path. */
export interface WebhookEndpoint {
  handler: WebhookHandler;
  path: string;
}

import { FAILING_RUN_MARK, type HandlerFailure } from '../compose/engine-config.ts';

export { HANDLER_FAILURES, type HandlerFailure } from '../compose/engine-config.ts';

/** One demo route: method, path (in the pattern syntax of spec CR-4.11) and whether credit402 gates it. */
export interface DemoRoute {
  method: string;
  path: string;
  key: string;
  gated: boolean;
  /** The segments of a pattern path; undefined for an exact one. */
  segments?: readonly RouteSegment[] | undefined;
  /** How its handler fails, for the profile's failing handlers; undefined for a handler that answers 200. */
  fails?: HandlerFailure | undefined;
}

/**
 * Lists the gated and free routes of the configuration as demo routes, exact paths first, then patterns most
 * specific first (CR-4.13), so that a router that tries routes in order (Express) picks the route the gate priced.
 * `failing` names the routes whose handler fails, and how (the profile's `failingHandlers`).
 */
export function demoRoutes(gatedKeys: Iterable<string>, freeKeys: readonly string[], failing: Readonly<Record<string, HandlerFailure>> = {}): DemoRoute[] {
  const toRoute = (key: string, gated: boolean): DemoRoute => {
    const space = key.indexOf(' ');
    const path = key.slice(space + 1);
    const fails = Object.hasOwn(failing, key) ? failing[key] : undefined;
    return { method: key.slice(0, space), path, key, gated, segments: parseRoutePattern(key, path), ...(fails ? { fails } : {}) };
  };
  const routes = [...[...gatedKeys].map((key) => toRoute(key, true)), ...freeKeys.map((key) => toRoute(key, false))];
  const exact = routes.filter((route) => route.segments === undefined);
  const patterns = routes.filter((route) => route.segments !== undefined);
  return [...exact, ...patterns.sort((a, b) => compareRouteSpecificity(a.segments ?? [], b.segments ?? []))];
}

/**
 * A route's path for Fastify's router (find-my-way): a named segment there also matches an empty segment
 * (`/api/users/` reaches `/api/users/:id` with id ""), so each gets the regular expression `(^.+$)` to match only a
 * non-empty one, as CR-4.12 says; the final `*` is Fastify's own.
 */
export function fastifyPath(route: DemoRoute): string {
  if (route.segments === undefined) return route.path;
  return `/${route.segments.map((segment) => (segment.kind === 'literal' ? segment.text : segment.kind === 'named' ? `:${segment.name}(^.+$)` : '*')).join('/')}`;
}

/**
 * The parameters of a pattern route from a router's parameters in path order (Express: `Object.values(req.params)`):
 * named segments by name, the wildcard as `*` (Express 5 gives its segments as a list, joined here with `/`).
 */
export function paramsOf(route: DemoRoute, values: readonly unknown[]): Record<string, string> {
  if (route.segments === undefined) return {};
  const names = (route.segments ?? []).flatMap((segment) => (segment.kind === 'named' ? [segment.name] : segment.kind === 'wildcard' ? ['*'] : []));
  const text = (value: unknown): string => (Array.isArray(value) ? value.join('/') : typeof value === 'string' ? value : '');
  return Object.fromEntries(names.map((name, index) => [name, text(values[index])]));
}

/** The JSON body a demo handler answers with; a pattern route's handler echoes its parameters. */
function demoBody(route: DemoRoute, payment: PaymentResponse | undefined, params: Record<string, string> | undefined): Record<string, unknown> {
  // Members set one by one (no spreads of empty objects): the free routes' hot path.
  const body: Record<string, unknown> = { route: route.key, gated: route.gated };
  if (payment) body.creditsRemaining = payment.creditsRemaining;
  if (route.segments !== undefined && params !== undefined) body.params = params;
  return body;
}

/**
 * A function that runs a demo handler, and what it is given: the route, where its runs are counted, the request's
 * `conformance-request-id`, the payment of a paid request and a pattern route's parameters.
 */
type DemoHandlerRun<Result> = (
  route: DemoRoute,
  runs: HandlerRuns,
  requestId: string | readonly string[] | undefined,
  payment: PaymentResponse | undefined,
  params?: Record<string, string>,
) => Result;

/** Runs a demo route's handler: counts the run under the request's `conformance-request-id`, returns the body to answer. */
export const runDemoHandler: DemoHandlerRun<Record<string, unknown>> = (route, runs, requestId, payment, params) => {
  runs.record(requestId);
  return demoBody(route, payment, params);
};

/** Whether a request's `conformance-request-id` asks an `answer500IfMarked` handler to fail. */
function isMarked(requestId: string | readonly string[] | undefined): boolean {
  return typeof requestId === 'string' && requestId.endsWith(FAILING_RUN_MARK);
}

/** The error a demo handler of `throw` throws: the framework's error handler answers it (500), as for any handler that fails. */
export class DemoHandlerError extends Error {
  override name = 'DemoHandlerError';
}

/** A demo handler's answer: its status and JSON body. */
export interface DemoAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Runs a demo route's handler as {@link runDemoHandler} does, and fails as the route says: status 500 with the route's
 * body and `error` for `answer500`, a {@link DemoHandlerError} thrown after the run was counted for `throw`.
 */
export const demoAnswer: DemoHandlerRun<DemoAnswer> = (route, runs, requestId, payment, params) => {
  const body = runDemoHandler(route, runs, requestId, payment, params);
  if (route.fails === 'throw') throw new DemoHandlerError(`the demo handler of ${route.key} throws (the profile's failingHandlers)`);
  if (route.fails === 'answer500' || (route.fails === 'answer500IfMarked' && isMarked(requestId))) {
    return { status: 500, body: { ...body, error: 'the demo handler answers 500 (the profile\'s failingHandlers)' } };
  }
  return { status: 200, body };
};

/** What the reference server decides for its app beside the routes (the app builders' last parameter). */
export interface AppOptions {
  /** The webhook endpoint, mounted when given (POST, never gated). */
  webhook?: WebhookEndpoint | undefined;
  /** Where the demo handlers count their runs, which the handled route reports; default: a new count. */
  runs?: HandlerRuns | undefined;
  /** The conformance control routes' state: the routes are mounted when given (conformance runs only). */
  control?: ConformanceControl | undefined;
  /**
   * Mount the handled route (`GET /_conformance/handled`, harness/PROFILE.md, Handler runs), a conformance route: the
   * reference server mounts it with `conformanceControl` only. Default true, for the self-test targets that build the
   * app themselves.
   */
  handled?: boolean;
  /** The log of the errors the framework raises (a handler that throws); default: the info level. */
  log?: ServerLog;
  /**
   * Which proxies may name the client's address (X-Forwarded-For), set as the framework's own option (Fastify's
   * `trustProxy`, Express's `trust proxy`) or, on `node:http`, read by `createClientAddressReader`; default none.
   */
  trustProxy?: TrustProxy | undefined;
}

/** Whether the app mounts the handled route: when asked, unless a configured route already answers `GET` on its path. */
export function mountsHandledRoute(routes: readonly DemoRoute[], options: AppOptions = {}): boolean {
  if (options.handled === false) return false;
  return !routes.some((route) => route.path === HANDLED_PATH && (route.method === 'GET' || route.method === 'HEAD'));
}
