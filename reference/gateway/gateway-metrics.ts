// The gateway's metrics endpoint (`metricsPath`): the reference server's endpoint, plus the upstream failures only the gateway sees.
import { createMetricsEndpoint, type MetricsEndpoint } from '../metrics/metrics-endpoint.ts';

/** The metrics endpoint of the gateway: the gate's metrics, then `credit402_gateway_upstream_failures_total`. */
export interface GatewayMetrics extends MetricsEndpoint {
  /** Counts a request the gateway answered itself because the upstream failed (502) or timed out (504). */
  upstreamFailed(status: 502 | 504): void;
}

/** Loads prom-client (ERR_MISSING_PACKAGE when it is not installed) and creates the gateway's metrics served at `path`. */
export async function createGatewayMetrics(path: string): Promise<GatewayMetrics> {
  const endpoint = await createMetricsEndpoint(path);
  // prom-client is there: createMetricsEndpoint loaded it.
  const { createUpstreamFailureMetrics } = await import('../metrics/upstream-failures.ts');
  const failures = createUpstreamFailureMetrics();
  return {
    ...endpoint,
    render: async () => `${await endpoint.render()}\n${await failures.metrics()}`,
    upstreamFailed: (status) => failures.count(status),
  };
}
