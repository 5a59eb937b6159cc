// The metrics endpoint on node:http: a request listener that answers the endpoint's path before the gate sees the request.
import type { RequestListener } from 'node:http';
import { metricsAnswer, type MetricsEndpoint } from '../../metrics/metrics-endpoint.ts';
import { routerPath } from '../router-path.ts';

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
