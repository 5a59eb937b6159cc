// The reference server's opt-in metrics endpoint (`metricsPath`): Prometheus text of the gate's events, never gated.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { withOptionalPackage } from '../config/optional-package.ts';
import type { GateHooks } from '../gate/events.ts';
import { routerPath } from './http-app.ts';

/** The endpoint: its path, the hooks the gate feeds, and the text it serves. */
export interface MetricsEndpoint {
  path: string;
  hooks: GateHooks;
  /** The current metrics as Prometheus text. */
  render(): Promise<string>;
  contentType: string;
}

/** Loads prom-client (an optional package) and creates the metrics served at `path`. */
export async function createMetricsEndpoint(path: string): Promise<MetricsEndpoint> {
  const { createPrometheusHooks } = await withOptionalPackage('prom-client', 'the metrics endpoint (metricsPath, --metrics-path)', () => import('../metrics/prometheus.ts'));
  const hooks = createPrometheusHooks();
  return { path, hooks, render: () => hooks.metrics(), contentType: hooks.contentType };
}

/** Answers GET and HEAD of the endpoint's path with the metrics; 405 for other methods. */
async function answer(endpoint: MetricsEndpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
    return;
  }
  const body = await endpoint.render();
  res.writeHead(200, { 'content-type': endpoint.contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A node:http request listener that serves the endpoint before `next` (and so before the gate) sees the request. */
export function withMetricsEndpoint(endpoint: MetricsEndpoint | undefined, next: RequestListener): RequestListener {
  if (endpoint === undefined) return next;
  return (req, res) => {
    if (routerPath(req.url ?? '') !== endpoint.path) return next(req, res);
    answer(endpoint, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`metrics failed: ${(error as Error).message}\n`);
    });
  };
}
