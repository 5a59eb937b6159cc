// The gate's own route matching (CR-4.2, CR-4.8, CR-4.12, CR-4.13): exact keys first, then patterns most specific first.
import { Credit402ConfigError } from '../config/config-error.ts';
import { compareSpecificity, matchesPattern, type RouteSegment } from './route-pattern.ts';

/** What the table needs of a route: its key, method, path and, for a pattern, its segments. */
export interface TableRoute {
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly segments?: readonly RouteSegment[] | undefined;
}

/** Finds the route a request names. */
export interface RouteTable<R extends TableRoute> {
  /** The most specific route whose key matches the method and request path; HEAD follows GET (CR-4.8). */
  match(method: string, path: string): R | undefined;
  /** The methods gated on `path` (HEAD with GET), for a CORS preflight of that path. */
  methodsOn(path: string): string[];
}

type PatternRoute<R> = R & { readonly segments: readonly RouteSegment[] };

const isPattern = <R extends TableRoute>(route: R): route is PatternRoute<R> => route.segments !== undefined;

/** Sorts patterns most specific first; at the same shape, HEAD before GET (only the HEAD list mixes them). */
function sortPatterns<R extends TableRoute>(patterns: PatternRoute<R>[]): PatternRoute<R>[] {
  return patterns.sort((a, b) => compareSpecificity(a.segments, b.segments) || (a.method === b.method ? 0 : a.method === 'HEAD' ? -1 : 1));
}

/** Refuses two keys of one method with the same shape (`GET /u/:id` and `GET /u/:name`): neither would be more specific. */
function refuseConflicts<R extends TableRoute>(sorted: readonly PatternRoute<R>[]): void {
  for (let index = 1; index < sorted.length; index++) {
    const before = sorted[index - 1] as PatternRoute<R>;
    const route = sorted[index] as PatternRoute<R>;
    if (compareSpecificity(before.segments, route.segments) === 0) {
      throw new Credit402ConfigError('ERR_ROUTE_CONFLICT', `routes "${before.key}" and "${route.key}" match the same requests with the same specificity: keep one`);
    }
  }
}

/** Builds the table of `routes`; throws `ERR_ROUTE_CONFLICT` when two patterns of one method have the same shape (CR-4.13). */
export function createRouteTable<R extends TableRoute>(routes: Iterable<R>): RouteTable<R> {
  const exact = new Map<string, R>();
  const byMethod = new Map<string, PatternRoute<R>[]>();
  for (const route of routes) {
    if (!isPattern(route)) {
      exact.set(route.key, route);
      continue;
    }
    const list = byMethod.get(route.method) ?? [];
    list.push(route);
    byMethod.set(route.method, list);
  }
  for (const list of byMethod.values()) refuseConflicts(sortPatterns(list));
  const headList = sortPatterns([...(byMethod.get('HEAD') ?? []), ...(byMethod.get('GET') ?? [])]);
  const methods = [...new Set([...exact.values(), ...[...byMethod.values()].flat()].map((route) => route.method))];

  function match(method: string, path: string): R | undefined {
    const found = exact.get(`${method} ${path}`) ?? (method === 'HEAD' ? exact.get(`GET ${path}`) : undefined);
    if (found !== undefined || byMethod.size === 0) return found;
    const list = method === 'HEAD' ? headList : byMethod.get(method);
    return list?.find((route) => matchesPattern(route.segments, path));
  }

  return {
    match,
    methodsOn(path) {
      const gated = methods.filter((method) => match(method, path)?.method === method);
      return gated.includes('GET') && !gated.includes('HEAD') ? [...gated, 'HEAD'] : gated;
    },
  };
}
