// Route-config validation without a gate: the checks `createGate` makes of its `routes` option, for code that only needs them.
import { createRouteTable } from './route-table.ts';
import { resolveRoutes, type ResolvedRoute } from './routes.ts';

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
