// Prometheus metrics of the gate's lifecycle events (`credit402/metrics`); with the gateway's upstream-failures.ts, the only modules that import prom-client.
import { Counter, Histogram, Registry } from 'prom-client';
import type { GateEvent, GateHooks } from '../gate/index.ts';

/** Hooks for the `hooks` gate option that count events into a prom-client registry. */
export interface PrometheusHooks extends GateHooks {
  onEvent: (event: GateEvent) => void;
  /** The registry the metrics are registered in. */
  readonly registry: Registry;
  /** The Prometheus text exposition of the registry, for a metrics endpoint. */
  metrics(): Promise<string>;
  /** The content type of {@link metrics}' text. */
  readonly contentType: string;
}

/** Most distinct `route` label values the hooks keep; events of further routes are counted under {@link OTHER_ROUTES}. */
export const MAX_ROUTE_LABELS = 1_000;

/** The `route` label of the events of routes past the first {@link MAX_ROUTE_LABELS}. */
export const OTHER_ROUTES = '(other routes)';

/** Store call latency buckets, in seconds: 0.5 ms to 2.5 s (the default store deadline is 500 ms). */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Creates the credit402 metrics in `registry` (default: a new one) and hooks that feed them. Labels never carry a
 * client id (a bearer credential): only the route key, the currency, the error code and the store operation. At most
 * {@link MAX_ROUTE_LABELS} route keys get series of their own; further ones share {@link OTHER_ROUTES}.
 *
 * - `credit402_paid_requests_total{route,currency}`: requests served after a deduction (or a served retry)
 * - `credit402_challenges_total{route}`: 402 challenges answered
 * - `credit402_charges_total{currency}`, `credit402_charged_minor_units_total{currency}`: card charges and their sum
 * - `credit402_credited_units_total{currency}`, `credit402_deducted_units_total{currency}`: balance movements in units
 * - `credit402_refunds_total`: prices given back (`refundOnHandlerError`; a gateway's upstream failure, CR-15.3)
 * - `credit402_errors_total{code}`: payment errors by `errorCode`, and `service_unavailable` for store outages
 * - `credit402_store_call_seconds{operation}`: histogram of store call latency
 */
export function createPrometheusHooks(registry: Registry = new Registry()): PrometheusHooks {
  const registers = [registry];
  const paid = new Counter({ name: 'credit402_paid_requests_total', help: 'Paid requests served (a deduction, or a retry served under its request id)', labelNames: ['route', 'currency'], registers });
  const charges = new Counter({ name: 'credit402_charges_total', help: 'Card charges that succeeded', labelNames: ['currency'], registers });
  const charged = new Counter({ name: 'credit402_charged_minor_units_total', help: 'Sum of the card charges, in minor units of the currency (cents)', labelNames: ['currency'], registers });
  const credited = new Counter({ name: 'credit402_credited_units_total', help: 'Top-ups credited to balances, in units (1/10000 of the currency)', labelNames: ['currency'], registers });
  const deducted = new Counter({ name: 'credit402_deducted_units_total', help: 'Prices deducted from balances, in units', labelNames: ['currency'], registers });
  const refunds = new Counter({ name: 'credit402_refunds_total', help: 'Prices given back: a failed handler (refundOnHandlerError), a gateway upstream that failed or timed out', registers });
  const errors = new Counter({ name: 'credit402_errors_total', help: 'Payment errors by errorCode, and service_unavailable for store outages', labelNames: ['code'], registers });
  const challenges = new Counter({ name: 'credit402_challenges_total', help: '402 challenges answered', labelNames: ['route'], registers });
  const storeCalls = new Histogram({ name: 'credit402_store_call_seconds', help: 'Latency of the store calls the gate makes', labelNames: ['operation'], buckets: STORE_BUCKETS, registers });

  // Route keys name routes, not request paths, yet an application's router may produce many (a mount it does not
  // show): the series stay bounded whatever it produces.
  const routes = new Set<string>();
  const routeLabel = (route: string): string => {
    if (routes.has(route)) return route;
    if (routes.size >= MAX_ROUTE_LABELS) return OTHER_ROUTES;
    routes.add(route);
    return route;
  };

  function onEvent(event: GateEvent): void {
    switch (event.type) {
      case 'challenge':
        challenges.inc({ route: routeLabel(event.route) });
        return;
      case 'charge':
        charges.inc({ currency: event.currency });
        charged.inc({ currency: event.currency }, event.minorUnits);
        return;
      case 'credit':
        credited.inc({ currency: event.currency }, event.units);
        return;
      case 'deduction':
        paid.inc({ route: routeLabel(event.route), currency: event.currency });
        if (event.units > 0) deducted.inc({ currency: event.currency }, event.units);
        return;
      case 'refund':
        refunds.inc();
        return;
      case 'payment_error':
        errors.inc({ code: event.code });
        return;
      case 'store_unavailable':
        errors.inc({ code: 'service_unavailable' });
        return;
      case 'store_call':
        storeCalls.observe({ operation: event.operation }, event.ms / 1000);
        return;
    }
  }

  return { onEvent, registry, metrics: () => registry.metrics(), contentType: registry.contentType };
}
