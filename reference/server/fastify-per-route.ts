// The reference server on Fastify with per-route gating: each gated demo route declares its price (`config: { credit402 }`), Fastify's router decides what matched.
import Fastify, { type FastifyInstance, type HTTPMethods } from 'fastify';
import { credit402Fastify, credit402FrameworkErrors } from '../adapters/fastify.ts';
import type { Gate } from '../gate/gate.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { credit402WebhookFastify } from '../webhooks/fastify-webhook.ts';
import type { ConformanceControl } from './conformance-control.ts';
import { fastifyPath, mountsHandledRoute, runDemoHandler, type DemoRoute, type WebhookEndpoint } from './demo-routes.ts';
import { fastifyErrorAnswers } from './error-answers.ts';
import { mountControl } from './fastify-app.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from './handler-runs.ts';
import type { MetricsEndpoint } from './metrics-endpoint.ts';

/**
 * Builds the per-route Fastify app (not listening yet): the gate has no route table; each gated demo route is
 * declared with `config: { credit402: prices[route.key] }` (route keys' paths as Fastify paths: `:name(^.+$)`,
 * a final `*`; see `fastifyPath`), every other route is free. The rest is the table app's (`buildFastifyApp`): the webhook endpoint when
 * `webhook` is given, the handled route counting `runs`, the control routes with `control`, the metrics endpoint.
 */
export async function buildFastifyPerRouteApp(
  gate: Gate,
  routes: readonly DemoRoute[],
  prices: Readonly<Record<string, RouteConfig>>,
  webhook?: WebhookEndpoint,
  runs: HandlerRuns = new HandlerRuns(),
  control?: ConformanceControl,
  metrics?: MetricsEndpoint,
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, frameworkErrors: credit402FrameworkErrors });
  app.setErrorHandler(fastifyErrorAnswers);
  await app.register(credit402Fastify, { gate });
  if (webhook) await app.register(credit402WebhookFastify, webhook);
  for (const route of routes) {
    const price = route.gated ? prices[route.key] : undefined;
    app.route({
      method: route.method as HTTPMethods,
      url: fastifyPath(route),
      ...(price ? { config: { credit402: price } } : {}),
      handler: async (request) => runDemoHandler(route, runs, request.headers[REQUEST_ID_HEADER], request.credit402, request.params as Record<string, string>),
    });
  }
  if (mountsHandledRoute(routes)) app.get(HANDLED_PATH, async (request) => runs.answer(request.url));
  if (control) await mountControl(app, control);
  if (metrics) app.get(metrics.path, async (_request, reply) => reply.header('cache-control', 'no-store').type(metrics.contentType).send(await metrics.render()));
  return app;
}
