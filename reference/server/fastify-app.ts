// The reference server on Fastify: the credit402 plugin in front of the demo routes.
import Fastify, { type FastifyInstance, type HTTPMethods } from 'fastify';
import { credit402Fastify } from '../adapters/fastify.ts';
import type { Gate } from '../gate/gate.ts';
import { credit402WebhookFastify } from '../webhooks/fastify-webhook.ts';
import { demoBody, type DemoRoute, type WebhookEndpoint } from './demo-routes.ts';

/** Builds the Fastify app (not listening yet), with the webhook endpoint when `webhook` is given. */
export async function buildFastifyApp(gate: Gate, routes: readonly DemoRoute[], webhook?: WebhookEndpoint): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(credit402Fastify, { gate });
  if (webhook) await app.register(credit402WebhookFastify, webhook);
  for (const route of routes) {
    app.route({
      method: route.method as HTTPMethods,
      url: route.path,
      handler: async (request) => demoBody(route, request.credit402),
    });
  }
  return app;
}
