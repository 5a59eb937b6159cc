// The reference server's demo handlers: every route answers a small JSON body naming itself and counts its runs.
import { compareSpecificity, parsePattern, type RouteSegment } from '../gate/route-pattern.ts';
import type { PaymentResponse } from '../protocol/types.ts';
import type { WebhookHandler } from '../webhooks/webhook-handler.ts';
import { HANDLED_PATH, type HandlerRuns } from './handler-runs.ts';

/** The webhook endpoint an app mounts: the engine and its path. */
export interface WebhookEndpoint {
  handler: WebhookHandler;
  path: string;
}

/** One demo route: method, path (in the pattern syntax of spec CR-4.11) and whether credit402 gates it. */
export interface DemoRoute {
  method: string;
  path: string;
  key: string;
  gated: boolean;
  /** The segments of a pattern path; undefined for an exact one. */
  segments?: readonly RouteSegment[] | undefined;
}

/**
 * Lists the gated and free routes of the configuration as demo routes, exact paths first, then patterns most
 * specific first (CR-4.13), so that a router that tries routes in order (Express) picks the route the gate priced.
 */
export function demoRoutes(gatedKeys: Iterable<string>, freeKeys: readonly string[]): DemoRoute[] {
  const toRoute = (key: string, gated: boolean): DemoRoute => {
    const space = key.indexOf(' ');
    const path = key.slice(space + 1);
    return { method: key.slice(0, space), path, key, gated, segments: parsePattern(key, path) };
  };
  const routes = [...[...gatedKeys].map((key) => toRoute(key, true)), ...freeKeys.map((key) => toRoute(key, false))];
  const exact = routes.filter((route) => route.segments === undefined);
  const patterns = routes.filter((route) => route.segments !== undefined);
  return [...exact, ...patterns.sort((a, b) => compareSpecificity(a.segments ?? [], b.segments ?? []))];
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
  const names = (route.segments ?? []).flatMap((segment) => (segment.kind === 'named' ? [segment.name] : segment.kind === 'wildcard' ? ['*'] : []));
  const text = (value: unknown): string => (Array.isArray(value) ? value.join('/') : typeof value === 'string' ? value : '');
  return Object.fromEntries(names.map((name, index) => [name, text(values[index])]));
}

/** The JSON body a demo handler answers with; a pattern route's handler echoes its parameters. */
function demoBody(route: DemoRoute, payment: PaymentResponse | undefined, params: Record<string, string> | undefined): Record<string, unknown> {
  return {
    route: route.key,
    gated: route.gated,
    ...(payment ? { creditsRemaining: payment.creditsRemaining } : {}),
    ...(route.segments !== undefined && params !== undefined ? { params } : {}),
  };
}

/** Runs a demo route's handler: counts the run under the request's `conformance-request-id`, returns the body to answer. */
export function runDemoHandler(
  route: DemoRoute,
  runs: HandlerRuns,
  requestId: string | readonly string[] | undefined,
  payment: PaymentResponse | undefined,
  params?: Record<string, string>,
): Record<string, unknown> {
  runs.record(requestId);
  return demoBody(route, payment, params);
}

/** Whether the app mounts the handled route: always, unless a configured route already answers `GET` on its path. */
export function mountsHandledRoute(routes: readonly DemoRoute[]): boolean {
  return !routes.some((route) => route.path === HANDLED_PATH && (route.method === 'GET' || route.method === 'HEAD'));
}
