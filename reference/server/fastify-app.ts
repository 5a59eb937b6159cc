// The reference server on Fastify: the credit402 plugin in front of the demo routes.
import Fastify, { type FastifyInstance, type HTTPMethods } from 'fastify';
import { credit402Fastify } from '../adapters/fastify.ts';
import type { Gate } from '../gate/gate.ts';
import { demoBody, type DemoRoute } from './demo-routes.ts';

/** Builds the Fastify app (not listening yet). */
export async function buildFastifyApp(gate: Gate, routes: readonly DemoRoute[]): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(credit402Fastify, { gate });
  for (const route of routes) {
    app.route({
      method: route.method as HTTPMethods,
      url: route.path,
      handler: async (request) => demoBody(route, request.credit402),
    });
  }
  return app;
}
