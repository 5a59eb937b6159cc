// Route-config validation without a gate: the checks `createGate` makes of its `routes` option, for code that only needs them.
import { createRouteTable } from './route-table.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { checkRouteConfig, resolveRoutes, type ResolvedRoute } from './routes.ts';

/**
 * Validates a route table (`{ '<METHOD> <path>': { amount, currency?, minTopUp?, maxTopUp?, description? } }`) as
 * `createGate` does, and returns its routes with their defaults applied, keyed `<METHOD> <path>`. Throws a
 * Credit402ConfigError naming the first broken rule: a malformed key (`ERR_ROUTE_KEY`), a bad amount, currency or top-up
 * bound, an invalid pattern (`ERR_ROUTE_PATTERN`, CR-4.11) or two patterns of one method with the same shape
 * (`ERR_ROUTE_CONFLICT`, CR-4.13). An adapter or a configuration loader calls it to refuse a table at start-up even
 * when no gate keeps it (per-route gating, where the framework's router decides what is gated).
 */
export function validateRoutes(routes: unknown): ReadonlyMap<string, ResolvedRoute> {
  const resolved = resolveRoutes(routes);
  createRouteTable(resolved.values());
  return resolved;
}

/**
 * Validates one route configuration before the route it prices is known (per-route gating, e.g. a middleware factory
 * such as `credit402.route(config)` called where the route is declared), as `createGate` checks a table's; throws a
 * Credit402ConfigError naming the broken rule (`ERR_ROUTES`, `ERR_ROUTE_AMOUNT`, …), its message starting with
 * `subject` (`credit402.route()`).
 */
export function validateRouteConfig(config: RouteConfig, subject: string): void {
  checkRouteConfig(config, subject);
}
