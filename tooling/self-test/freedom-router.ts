// The freedom target's application router: as loose as common routers are, so a free request may reach a gated route's handler (spec Appendix C, L-14, L-15).
import type { DemoRoute } from 'credit402/internal/server/demo-routes';

/** A demo route the router found, with the parameters of its pattern. */
export interface LooseMatch {
  route: DemoRoute;
  params: Record<string, string>;
}

/**
 * The segments a loose router reads in a request path: `\` read as `/`, every percent-encoding decoded, empty and `.`
 * segments dropped (repeated and trailing slashes), `..` taking the previous segment away, case folded; undefined when
 * the path does not decode (the router's own 400).
 */
export function looseSegments(path: string): string[] | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path.replaceAll('\\', '/'));
  } catch {
    return undefined;
  }
  const segments: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment.toLowerCase());
  }
  return segments;
}

/** The parameters of `route` for the segments read, or undefined when it does not match them. */
function paramsOf(route: DemoRoute, segments: readonly string[]): Record<string, string> | undefined {
  const pattern = route.segments ?? (looseSegments(route.path) ?? []).map((text) => ({ kind: 'literal' as const, text }));
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    if (part.kind === 'wildcard') {
      params['*'] = segments.slice(index).join('/');
      return params;
    }
    const segment = segments[index];
    if (segment === undefined) return undefined;
    if (part.kind === 'literal' && segment !== part.text.toLowerCase()) return undefined;
    if (part.kind === 'named') params[part.name] = segment;
  }
  return segments.length === pattern.length ? params : undefined;
}

/**
 * The route a loose router sends `method` and `path` to: the first of `routes` (exact paths first, then patterns most
 * specific first, as demoRoutes orders them) that matches, a HEAD request running the GET route's handler (L-14).
 * `'bad'` when the path does not decode, undefined when no route matches.
 */
export function looseRoute(routes: readonly DemoRoute[], method: string, path: string): LooseMatch | 'bad' | undefined {
  const segments = looseSegments(path);
  if (segments === undefined) return 'bad';
  for (const wanted of method === 'HEAD' ? ['HEAD', 'GET'] : [method]) {
    for (const route of routes) {
      if (route.method !== wanted) continue;
      const params = paramsOf(route, segments);
      if (params !== undefined) return { route, params };
    }
  }
  return undefined;
}
