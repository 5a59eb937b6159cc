// The opt-in metrics endpoint (`metricsPath`) of the reference server and the gateway: Prometheus text of the gate's events, never gated.
import type { RequestListener } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { withOptionalPackage } from '../config/optional-package.ts';
import type { GateHooks } from '../gate/index.ts';
import { routerPath } from '../adapters/router-path.ts';
import { bearerMatches, UNAUTHORIZED_HEADERS } from './metrics-token.ts';

/** The endpoint: its path, the bearer token it asks for, the hooks the gate feeds, and the text it serves. */
export interface MetricsEndpoint {
  path: string;
  /** The bearer token every request must carry (`Authorization: Bearer <token>`; 401 otherwise); unset, the endpoint is open. */
  token?: string | undefined;
  hooks: GateHooks;
  /** The current metrics as Prometheus text. */
  render(): Promise<string>;
  contentType: string;
}

/** What the endpoint answers one request: status, headers and, unless HEAD or refused, the metrics text. */
export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/** What needs prom-client, in the ERR_MISSING_PACKAGE message when it is not installed. */
const NEEDED_FOR = 'the metrics endpoint (metricsPath, --metrics-path)';

/** Loads prom-client (an optional package) and creates the metrics served at `path`, behind `token` when it is given. */
export async function createMetricsEndpoint(path: string, token?: string): Promise<MetricsEndpoint> {
  const { createPrometheusHooks } = await withOptionalPackage('prom-client', NEEDED_FOR, () => import('./prometheus.ts'));
  const hooks = createPrometheusHooks();
  return { path, token, hooks, render: () => hooks.metrics(), contentType: hooks.contentType };
}

/**
 * The answer to a request of the endpoint's path: 401 without the endpoint's bearer token (when it has one), else the
 * metrics to GET and HEAD (`cache-control: no-store`), 405 to other methods.
 */
export async function metricsAnswer(endpoint: MetricsEndpoint, method: string | undefined, authorization: string | undefined): Promise<MetricsAnswer> {
  if (endpoint.token !== undefined && !bearerMatches(authorization, endpoint.token)) {
    return { status: 401, headers: { ...UNAUTHORIZED_HEADERS }, body: 'unauthorized\n' };
  }
  if (method !== 'GET' && method !== 'HEAD') {
    return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, body: 'method not allowed\n' };
  }
  const body = await endpoint.render();
  return { status: 200, headers: { 'content-type': endpoint.contentType, 'cache-control': 'no-store' }, ...(method === 'HEAD' ? {} : { body }) };
}

/** A node:http request listener that serves the endpoint before `next` (and so before the gate) sees the request. */
export function withMetricsEndpoint(endpoint: MetricsEndpoint | undefined, next: RequestListener): RequestListener {
  if (endpoint === undefined) return next;
  return (req, res) => {
    if (routerPath(req.url ?? '') !== endpoint.path) return next(req, res);
    metricsAnswer(endpoint, req.method, req.headers.authorization).then(
      (answer) => res.writeHead(answer.status, answer.headers).end(answer.body),
      (error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`metrics failed: ${(error as Error).message}\n`);
      },
    );
  };
}

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
