// The opt-in metrics endpoint (`metricsPath`) of the reference server and the gateway, framework-free: Prometheus text of the gate's events, never gated (each adapter folder routes it).
import { withOptionalPackage } from '../config/optional-package.ts';
import type { GateHooks } from '../gate/index.ts';
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
