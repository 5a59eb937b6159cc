// The reference server on Fastify: the credit402 plugin in front of the demo routes, the handled route and the control routes.
import Fastify, { type FastifyInstance, type HTTPMethods } from 'fastify';
import { credit402Fastify, credit402FrameworkErrors } from '../adapters/fastify/fastify.ts';
import type { Gate } from '../gate/index.ts';
import { trustFunction } from '../adapters/client-address.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { credit402WebhookFastify } from '../adapters/fastify/fastify-webhook.ts';
import { mountControlFastify } from '../adapters/fastify/fastify-control.ts';
import { demoAnswer, fastifyPath, mountsHandledRoute, type AppOptions, type DemoRoute } from './demo-routes.ts';
import { fastifyErrorAnswers, fastifyErrorAnswersTo } from './error-answers.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from '../conformance-control/handler-runs.ts';
import { routeMetricsEndpoint } from '../adapters/fastify/fastify-metrics.ts';
import type { MetricsEndpoint } from '../metrics/metrics-endpoint.ts';

/** What the Fastify app is built with besides the gate and its routes: {@link AppOptions}, the metrics and per-route prices. */
export interface FastifyAppOptions extends AppOptions {
  /** The metrics endpoint, answered by the app itself (never gated). */
  metrics?: MetricsEndpoint | undefined;
  /** Per-route gating: the price of each gated route, declared with the route (the gate then has no table). */
  prices?: Readonly<Record<string, RouteConfig>> | undefined;
}

/**
 * Builds the Fastify app (not listening yet), with the webhook endpoint when `webhook` is given. The demo handlers
 * count their runs in `runs`, which `GET /_conformance/handled` reports (unless `options.handled` is false). With
 * `control`, the conformance control routes are mounted too (only for conformance runs: they inject store faults). With `prices` (per-route gating,
 * spec CR-4.15), each gated demo route declares its price as `config: { credit402: prices[route.key] }` and
 * Fastify's router decides what matched; the gate then has no table.
 */
export async function buildFastifyApp(gate: Gate, routes: readonly DemoRoute[], options: FastifyAppOptions = {}): Promise<FastifyInstance> {
  const { webhook, runs = new HandlerRuns(), control, metrics, prices } = options;
  // The client's address (`request.ip`, which the gate's rate limit counts by) follows the configured trustProxy.
  const app = Fastify({ logger: false, frameworkErrors: credit402FrameworkErrors, trustProxy: trustFunction(options.trustProxy) });
  app.setErrorHandler(options.log ? fastifyErrorAnswersTo(options.log) : fastifyErrorAnswers);
  await app.register(credit402Fastify, { gate });
  if (webhook) await app.register(credit402WebhookFastify, webhook);
  for (const route of routes) {
    const price = route.gated ? prices?.[route.key] : undefined;
    app.route({
      method: route.method as HTTPMethods,
      url: fastifyPath(route),
      ...(price ? { config: { credit402: price } } : {}),
      handler: async (request, reply) => {
        const answer = demoAnswer(route, runs, request.headers[REQUEST_ID_HEADER], request.credit402, request.params as Record<string, string>);
        return reply.code(answer.status).send(answer.body);
      },
    });
  }
  if (mountsHandledRoute(routes, options)) app.get(HANDLED_PATH, async (request) => runs.answer(request.url));
  if (control) await mountControlFastify(app, control);
  // Not a gated route (the configuration refuses one on this path): the gate's hook passes it through.
  if (metrics) routeMetricsEndpoint(app, metrics);
  return app;
}
