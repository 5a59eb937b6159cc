// Route paths in the syntax of a Web-standard router (Hono's `:id{[0-9]+}`, Next.js's `[id]` folders) as route keys, and the gated route of each key.
import { validateRouteConfig, type Gate, type GatedRoute } from '../../gate/index.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { keyPathOf } from '../route-key-path.ts';

/** A Hono named segment with its regular expression (`:id{[0-9]+}`), and a Next.js dynamic folder (`[id]`, `[...slug]`, `[[...slug]]`). */
const HONO_NAMED = /^:([A-Za-z_][A-Za-z0-9_]*)\{(.*)\}$/;
const NEXT_NAMED = /^\[([A-Za-z_][A-Za-z0-9_]*)\]$/;
const NEXT_CATCH_ALL = /^\[\[?\.\.\.[A-Za-z_][A-Za-z0-9_]*\]\]?$/;
/** A Hono regular expression that takes the rest of the path: as a last segment, the route-key wildcard. */
const REST = /^\.[*+]$/;

/**
 * A route path of Hono or of Next.js's App Router in the route-key syntax (CR-4.11) when it has that shape, so that
 * records and metrics name a route alike on every framework: a last `:rest{.*}` and Next's `[...slug]` are `*`, a
 * named segment with a regular expression (`:id{[0-9]+}`) and Next's `[id]` are `:id`; the rest as
 * {@link keyPathOf} reads it (Hono's final `*` is `*`). A path with other syntax is returned as it is.
 */
export function routeKeyPath(path: string): string {
  const segments = path.split('/');
  const last = segments.length - 1;
  const converted = segments.map((segment, index) => {
    const hono = HONO_NAMED.exec(segment);
    if (hono !== null) return index === last && REST.test(hono[2] ?? '') ? '*' : `:${hono[1]}`;
    const next = NEXT_NAMED.exec(segment);
    if (next !== null) return `:${next[1]}`;
    return index === last && NEXT_CATCH_ALL.test(segment) ? '*' : segment;
  });
  return keyPathOf(converted.join('/'));
}

/** How many route keys one priced handler keeps; past that (a path per request), each request prices its own. */
const MAX_CACHED_KEYS = 1_000;

/**
 * The gated routes of one per-route declaration (`config`, validated here, errors naming `where`), by route key: priced
 * by `gate.defineRoute` once per key.
 */
export function routePricing(gate: Gate, config: RouteConfig, where: string): (key: string) => GatedRoute {
  validateRouteConfig(config, where);
  const routes = new Map<string, GatedRoute>();
  return (key) => {
    const known = routes.get(key);
    if (known !== undefined) return known;
    const route = gate.defineRoute(key, config);
    if (routes.size < MAX_CACHED_KEYS) routes.set(key, route);
    return route;
  };
}

/** The method a route key names for a request: HEAD is served by the GET route in Hono and Next.js alike (CR-4.8). */
export function keyMethod(method: string): string {
  return method === 'HEAD' ? 'GET' : method;
}
