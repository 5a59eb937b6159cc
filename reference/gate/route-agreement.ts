// Which gated route a request names, and how an adapter that runs after the router makes the gate decide on the router's match.
import type { GatedRoute } from './context.ts';
import { readRequestTarget } from './request-target.ts';

/** The gated route of a method and request path; HEAD falls back to GET because frameworks run GET handlers for HEAD (CR-4.8). */
export function routeOf(routes: ReadonlyMap<string, GatedRoute>, method: string, path: string): GatedRoute | undefined {
  return routes.get(`${method} ${path}`) ?? (method === 'HEAD' ? routes.get(`GET ${path}`) : undefined);
}

/**
 * What the gate decides on when the adapter knows the route the application's router matched (CR-4.9): `routerPath`
 * is the path of the static route it matched, `null` when it matched none; leave it `undefined` when the router
 * cannot say (a parametric route). Returns the target to hand `gate.handle`, or `free` when the router sends the
 * request to no gated route's handler (then nothing is gated, read or charged, whatever the target reads as).
 * When the router reaches a gated route, the gate decides on that route's path (and the target's query), so the
 * router and the gate agree even where the router reads more into a target than CR-4.2 does. An ambiguous target
 * is handed over as it is, for the gate to refuse (CR-4.10).
 */
export function routerDecidedTarget(
  routes: ReadonlyMap<string, GatedRoute>,
  method: string,
  target: string,
  routerPath: string | null | undefined,
): { url: string } | 'free' {
  const reading = readRequestTarget(target);
  if (!reading.ok || routerPath === undefined) return { url: target };
  const routed = routerPath === null ? undefined : routeOf(routes, method, routerPath);
  if (routed === undefined) return 'free';
  return { url: `${routed.path}${reading.query}` };
}
