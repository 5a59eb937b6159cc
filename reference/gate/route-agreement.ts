// How an adapter that runs after the application's router makes the gate decide on the route the router matched.
import type { GatedRoute } from './context.ts';
import type { Gate } from './gate.ts';
import { readRequestTarget } from './request-target.ts';

/** What to hand `gate.handle` for a request the router sent to a route: the target, and the gated route when known. */
export type RouterDecision = { url: string; route?: GatedRoute } | 'free';

const isPattern = (path: string): boolean => /[:*]/.test(path);

/**
 * What the gate decides on when the adapter knows the route the application's router matched (CR-4.9): `routerPath`
 * is that route's path in the router's syntax (`/api/weather`, `/api/users/:id`), `null` when it matched none.
 * - A route whose key is in the table (`<METHOD> <routerPath>`, HEAD falling back to GET) is decided on that route.
 * - A static path the router matched is a request path: the table's route for it (CR-4.12), or free when none.
 * - A parametric route outside the table is left to the gate, which matches the target itself.
 * - No route: free, whatever the target reads as (nothing is gated, read or charged).
 * An ambiguous target is handed over as it is, for the gate to refuse (CR-4.10).
 */
export function routerDecidedTarget(gate: Pick<Gate, 'routes' | 'match'>, method: string, target: string, routerPath: string | null): RouterDecision {
  if (!readRequestTarget(target).ok) return { url: target };
  if (routerPath === null) return 'free';
  return onRoute(routerRoute(gate, method, routerPath), target);
}

/**
 * {@link routerDecidedTarget} for one gate, remembering what each (router path, method) pair it has seen comes to: the
 * gate's table does not change, so neither does that answer, and a paid request then builds no `<METHOD> <path>` key.
 * The pairs are bounded by the router's routes and the methods the HTTP parser accepts.
 */
export function createRouterAgreement(gate: Pick<Gate, 'routes' | 'match'>): (method: string, target: string, routerPath: string | null) => RouterDecision {
  const known = new Map<string, Map<string, RouterRoute>>();
  return (method, target, routerPath) => {
    if (!readRequestTarget(target).ok) return { url: target };
    if (routerPath === null) return 'free';
    let byMethod = known.get(routerPath);
    if (byMethod === undefined) {
      byMethod = new Map();
      known.set(routerPath, byMethod);
    }
    let route = byMethod.get(method);
    if (route === undefined) {
      route = routerRoute(gate, method, routerPath);
      byMethod.set(method, route);
    }
    return onRoute(route, target);
  };
}

/** What the router's route alone decides: the gated route, free, or `gate` (the gate matches the target itself). */
type RouterRoute = GatedRoute | 'free' | 'gate';

function routerRoute(gate: Pick<Gate, 'routes' | 'match'>, method: string, routerPath: string): RouterRoute {
  const keyed = gate.routes.get(`${method} ${routerPath}`) ?? (method === 'HEAD' ? gate.routes.get(`GET ${routerPath}`) : undefined);
  if (keyed !== undefined) return keyed;
  if (isPattern(routerPath)) return 'gate';
  return gate.match(method, routerPath) ?? 'free';
}

function onRoute(route: RouterRoute, target: string): RouterDecision {
  if (route === 'free') return 'free';
  return route === 'gate' ? { url: target } : { url: target, route };
}
