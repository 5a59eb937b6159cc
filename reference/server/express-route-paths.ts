// Route-key paths of the engine's syntax (`:name` segments, a final `*`; spec CR-4.11) as Express 4 and 5 paths, in the order Express must declare them.
import { compareRouteSpecificity, parseRoutePattern, type RouteSegment } from '../gate/index.ts';

/** Characters path-to-regexp 0.1 (Express 4) or 8 (Express 5) reads as syntax in a literal segment; escaped with `\`. */
const SYNTAX = /[()[\]{}+!\\$^|]/g;

/** The segments of a route-key path; an exact path is all literal. */
function segmentsOf(path: string): readonly RouteSegment[] {
  return parseRoutePattern(`GET ${path}`, path) ?? path.slice(1).split('/').map((text) => ({ kind: 'literal', text }));
}

/**
 * Whether an Express module's router takes a bare `*` (Express 4, path-to-regexp 0.1) rather than only a named
 * wildcard (`/{*rest}`, Express 5, path-to-regexp 8).
 */
export function takesBareWildcard(express: { Router(): { get(path: string, handler: () => void): unknown } }): boolean {
  try {
    express.Router().get('/x/*', () => {});
    return true;
  } catch {
    return false;
  }
}

/**
 * The Express path that matches what a route-key path matches (CR-4.12): a literal segment as text (its
 * path-to-regexp syntax characters escaped), `:name` as it is, and a final `*` (any rest of the path, possibly empty)
 * as `*` on Express 4 or `{*rest}` on Express 5. Express must route with `strict routing` and `case sensitive
 * routing` on for a literal to match only itself.
 */
export function expressPath(path: string, bareWildcard: boolean): string {
  const segments = segmentsOf(path);
  const names = new Set(segments.flatMap((segment) => (segment.kind === 'named' ? [segment.name] : [])));
  let rest = 'rest';
  while (names.has(rest)) rest = `${rest}_`;
  const parts = segments.map((segment) => {
    if (segment.kind === 'literal') return segment.text.replace(SYNTAX, (char) => `\\${char}`);
    if (segment.kind === 'named') return `:${segment.name}`;
    return bareWildcard ? '*' : `{*${rest}}`;
  });
  return `/${parts.join('/')}`;
}

/**
 * `routes` in the order Express must declare them: most specific first (a literal segment before a named one before
 * `*`, CR-4.13), since Express runs the first route that matches while the gate's table takes the most specific.
 * Routes of the same shape keep their order.
 */
export function inRouterOrder<R extends { path: string }>(routes: readonly R[]): R[] {
  return routes
    .map((route) => ({ route, segments: segmentsOf(route.path) }))
    .sort((a, b) => compareRouteSpecificity(a.segments, b.segments))
    .map(({ route }) => route);
}
