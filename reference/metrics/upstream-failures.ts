// The gateway's own Prometheus metric, which no gate event carries: the answers it gave itself because the upstream failed.
import { Counter, Registry } from 'prom-client';

/** What the gateway answered: 502 when the upstream refused or broke the connection, 504 when it was too slow. */
export type UpstreamFailureStatus = 502 | 504;

/** The counter of upstream failures and the Prometheus text of its registry. */
export interface UpstreamFailureMetrics {
  /** Counts one request the gateway answered `status` itself. */
  count(status: UpstreamFailureStatus): void;
  /** The Prometheus text exposition of the registry. */
  metrics(): Promise<string>;
}

/**
 * Creates `credit402_gateway_upstream_failures_total{status="502"|"504"}` in `registry` (default: a new one), both
 * series at 0: the status the gateway answered itself (or, when the upstream's answer had begun, the kind of failure
 * that cut it). Paid or free requests alike; the price of a paid one goes back (CR-15.3), which the gate counts in
 * `credit402_refunds_total`.
 */
export function createUpstreamFailureMetrics(registry: Registry = new Registry()): UpstreamFailureMetrics {
  const failures = new Counter({
    name: 'credit402_gateway_upstream_failures_total',
    help: 'Forwarded requests whose upstream failed: 502 when it refused or broke the connection, 504 when it timed out',
    labelNames: ['status'],
    registers: [registry],
  });
  for (const status of ['502', '504']) failures.inc({ status }, 0);
  return { count: (status) => failures.inc({ status: String(status) }), metrics: () => registry.metrics() };
}
