// The metrics endpoint on Fastify: one route for every method of its path, outside the gate.
import type { FastifyInstance } from 'fastify';
import { metricsAnswer, type MetricsEndpoint } from '../../metrics/metrics-endpoint.ts';

/**
 * Routes every method of the endpoint's path on a Fastify app (the reference server's, the gateway's): a gate hook
 * must let that route through (the configuration refuses a gated route on it); the gateway's hook is in another scope.
 */
export function routeMetricsEndpoint(app: FastifyInstance, endpoint: MetricsEndpoint): void {
  app.all(endpoint.path, async (request, reply) => {
    const answer = await metricsAnswer(endpoint, request.method, request.headers.authorization);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
}
