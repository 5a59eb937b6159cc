// The reference server on Fastify: the credit402 plugin in front of the demo routes, the handled route and the control routes.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HTTPMethods } from 'fastify';
import { credit402Fastify, credit402FrameworkErrors } from '../adapters/fastify.ts';
import type { Gate } from '../gate/gate.ts';
import { credit402WebhookFastify } from '../webhooks/fastify-webhook.ts';
import { CONTROL_BODY_LIMIT, RECORDS_PATH, STORE_FAULTS_PATH, type ConformanceControl } from './conformance-control.ts';
import { fastifyPath, mountsHandledRoute, runDemoHandler, type DemoRoute, type WebhookEndpoint } from './demo-routes.ts';
import { fastifyErrorAnswers } from './error-answers.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from './handler-runs.ts';
import { routeMetricsEndpoint, type MetricsEndpoint } from './metrics-endpoint.ts';

/** Mounts the control routes in a scope of their own that takes any body as text, which the control validates. */
export async function mountControl(app: FastifyInstance, control: ConformanceControl): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: CONTROL_BODY_LIMIT }, (_request, body, done) => done(null, body));
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const body = typeof request.body === 'string' ? request.body : undefined;
      const answer = await control.handle({ method: request.method, url: request.url, body });
      return reply.code(answer.status).headers(answer.headers ?? {}).send(answer.body);
    };
    for (const url of [STORE_FAULTS_PATH, RECORDS_PATH]) scope.route({ method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'], url, handler });
  });
}

/**
 * Builds the Fastify app (not listening yet), with the webhook endpoint when `webhook` is given. The demo handlers
 * count their runs in `runs`, which `GET /_conformance/handled` reports. With `control`, the conformance control
 * routes are mounted too (only for conformance runs: they inject store faults).
 */
export async function buildFastifyApp(
  gate: Gate,
  routes: readonly DemoRoute[],
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
    app.route({
      method: route.method as HTTPMethods,
      url: fastifyPath(route),
      handler: async (request) => runDemoHandler(route, runs, request.headers[REQUEST_ID_HEADER], request.credit402, request.params as Record<string, string>),
    });
  }
  if (mountsHandledRoute(routes)) app.get(HANDLED_PATH, async (request) => runs.answer(request.url));
  if (control) await mountControl(app, control);
  // Not a gated route (the configuration refuses one on this path): the gate's hook passes it through.
  if (metrics) routeMetricsEndpoint(app, metrics);
  return app;
}
