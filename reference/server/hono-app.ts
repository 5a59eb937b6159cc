// The reference server on Hono: the credit402 Hono middleware (table or per route) in front of the demo routes, the handled route, the webhook, control and metrics routes.
import { IncomingMessage } from 'node:http';
import { type Context, Hono } from 'hono';
import { credit402Hono } from '../adapters/fetch/hono.ts';
import { CONTROL_PATHS, controlFetchHandler } from '../adapters/fetch/control.ts';
import { metricsFetchHandler } from '../adapters/fetch/metrics.ts';
import { jsonResponse } from '../adapters/fetch/read-body.ts';
import { urlTarget } from '../adapters/fetch/request-facts.ts';
import { credit402WebhookHandler } from '../adapters/fetch/webhook.ts';
import { createClientAddressReader } from '../adapters/client-address.ts';
import type { Gate, RouteSegment } from '../gate/index.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from '../conformance-control/handler-runs.ts';
import type { MetricsEndpoint } from '../metrics/metrics-endpoint.ts';
import { demoAnswer, mountsHandledRoute, type AppOptions, type DemoRoute } from './demo-routes.ts';
import { errorBody, errorStatus, reportFault } from './error-answers.ts';
import { createServerLog } from '../compose/server-log.ts';
import { inRouterOrder } from './express-route-paths.ts';

/** What the Hono app is built with besides the gate and its routes: {@link AppOptions}, the metrics and per-route prices. */
export interface HonoAppOptions extends AppOptions {
  /** The metrics endpoint, answered by the app itself (never gated). */
  metrics?: MetricsEndpoint | undefined;
  /** Per-route gating: the price of each gated route, declared with `credit402.route(price)` (the gate then has no table). */
  prices?: Readonly<Record<string, RouteConfig>> | undefined;
}

/** The name of a pattern's wildcard parameter in Hono's path: one no named segment of the route uses. */
function restName(segments: readonly RouteSegment[]): string {
  let name = 'rest';
  while (segments.some((segment) => segment.kind === 'named' && segment.name === name)) name = `${name}_`;
  return name;
}

/**
 * A route-key path as Hono's path: `:name` as it is (Hono's matches one non-empty segment, CR-4.12), a final `*` as
 * `:rest{.*}`, which matches the rest after its `/`, possibly empty, but not the path without it (Hono's own `*`
 * does: `/files/*` matches `/files`). Hono routes case-sensitively and strictly (trailing slashes) by default.
 */
export function honoPath(route: DemoRoute): string {
  if (route.segments === undefined) return route.path;
  const rest = restName(route.segments);
  return `/${route.segments.map((segment) => (segment.kind === 'literal' ? segment.text : segment.kind === 'named' ? `:${segment.name}` : `:${rest}{.*}`)).join('/')}`;
}

/** A pattern route's parameters as Hono decoded them: named segments by name, the wildcard's rest as `*`. */
function paramsOf(route: DemoRoute, c: Context): Record<string, string> | undefined {
  if (route.segments === undefined) return undefined;
  const rest = restName(route.segments);
  const params: Record<string, string> = {};
  for (const segment of route.segments) {
    if (segment.kind === 'named') params[segment.name] = c.req.param(segment.name) ?? '';
    if (segment.kind === 'wildcard') params['*'] = c.req.param(rest) ?? '';
  }
  return params;
}

/** The node:http request behind a Hono context on `@hono/node-server` (Node, or Bun's node:http), if any. */
function incomingOf(c: Context): IncomingMessage | undefined {
  const env: unknown = c.env;
  const incoming = typeof env === 'object' && env !== null ? Reflect.get(env, 'incoming') : undefined;
  return incoming instanceof IncomingMessage ? incoming : undefined;
}

/**
 * Builds the Hono app (not listening: `app.fetch` is its handler), with the webhook endpoint when `webhook` is given.
 * The demo handlers count their runs in `runs`, which `GET /_conformance/handled` reports (unless `options.handled` is
 * false). With `control`, the conformance control routes are mounted too (conformance runs only). With `prices`
 * (per-route gating, CR-4.15), `credit402.targetGuard()` runs first and each gated demo route declares
 * `credit402.route(prices[route.key])`, Hono's router deciding what matched; otherwise `credit402.middleware()` gates
 * by the gate's table. The client's address is the socket's peer behind the configured `trustProxy`.
 */
export function buildHonoApp(gate: Gate, routes: readonly DemoRoute[], options: HonoAppOptions = {}): Hono {
  const { webhook, runs = new HandlerRuns(), control, metrics, prices } = options;
  const log = options.log ?? createServerLog();
  const readAddress = createClientAddressReader(options.trustProxy);
  const credit402 = credit402Hono(gate, {
    clientAddress: (c) => {
      const incoming = incomingOf(c);
      return incoming === undefined ? undefined : readAddress(incoming);
    },
  });
  const app = new Hono();
  app.onError((error, c) => {
    const status = errorStatus(error);
    reportFault(log, status, c.req.method, urlTarget(c.req.url), error);
    return jsonResponse(status, errorBody(status));
  });
  app.notFound((c) => c.json(errorBody(404), 404));
  app.use(prices ? credit402.targetGuard() : credit402.middleware());
  if (webhook) {
    const answer = credit402WebhookHandler(webhook.handler);
    app.post(webhook.path, (c) => answer(c.req.raw));
  }
  if (metrics) {
    const answer = metricsFetchHandler(metrics);
    app.all(metrics.path, (c) => answer(c.req.raw));
  }
  for (const route of inRouterOrder(routes)) {
    const price = route.gated ? prices?.[route.key] : undefined;
    const handler = (c: Context) => {
      const answer = demoAnswer(route, runs, c.req.header(REQUEST_ID_HEADER), c.get('credit402'), paramsOf(route, c));
      return jsonResponse(answer.status, answer.body);
    };
    if (price) app.on(route.method, honoPath(route), credit402.route(price), handler);
    else app.on(route.method, honoPath(route), handler);
  }
  if (mountsHandledRoute(routes, options)) app.get(HANDLED_PATH, (c) => c.json(runs.answer(urlTarget(c.req.url))));
  if (control) {
    const answer = controlFetchHandler(control);
    for (const path of CONTROL_PATHS) app.all(path, (c) => answer(c.req.raw));
  }
  return app;
}
