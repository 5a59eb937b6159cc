// Near-misses of gated routes (spec CR-15.5): request paths the gate reads as free that a router matching more loosely than the gate (case, slashes, `;` parameters, percent-decoding, empty named segments) reads as a gated route.
import type { RespondDecision } from './decision.ts';
import { respond } from './responses.ts';
import type { RouteSegment } from './route-pattern.ts';
import type { TableRoute } from './route-table.ts';

/**
 * The ways a router may match more loosely than the gate (CR-4.2, CR-4.12), each reading one request path as another:
 * - `case-insensitive`: `/API/weather` is `/api/weather` (Express by default, ASP.NET);
 * - `optional-trailing-slash`: `/api/weather/` is `/api/weather`, and the reverse (Express by default);
 * - `merged-slashes`: `//api/weather` and `/api//weather` are `/api/weather` (nginx by default);
 * - `matrix-parameters`: `;` and what follows it up to the next `/` are dropped from each segment (`/api/weather;jsessionid=1`: servlet containers);
 * - `percent-decoding`: every percent-encoding is decoded before matching (`/api%2Fweather`: nginx, Go's ServeMux);
 * - `empty-named-segments`: a named segment matches an empty one (`/api/users/` for `/api/users/:id`: find-my-way, Fastify's router).
 */
export const ROUTER_LOOSENESSES = ['case-insensitive', 'optional-trailing-slash', 'merged-slashes', 'matrix-parameters', 'percent-decoding', 'empty-named-segments'] as const;

/** One way a router matches more loosely than the gate: see {@link ROUTER_LOOSENESSES}. */
export type RouterLooseness = (typeof ROUTER_LOOSENESSES)[number];

/** The `error` code of the answer to a near-miss of a gated route (CR-15.5). */
export const NEAR_MISS = 'near_miss_of_gated_route';

/** Finds the gated route a looser router could read a free request's path as. */
export interface NearMisses<R extends TableRoute> {
  /**
   * The gated route that a router with the table's loosenesses could read `path` (a request path, CR-4.2) as, for a
   * request of `method` the gate reads as free (HEAD following GET, CR-4.8); undefined when there is none. Call it only
   * for a request the gate matched to no route: a path the gate matches is its own route's "near-miss".
   */
  routeNear(method: string, path: string): R | undefined;
}

/** Which loosenesses are on, as booleans read on every request. */
interface Looseness {
  readonly foldCase: boolean;
  readonly trailingSlash: boolean;
  readonly mergeSlashes: boolean;
  readonly dropMatrix: boolean;
  readonly decode: boolean;
  readonly emptyNamed: boolean;
}

/** A pattern as a looser router reads it: its literals in comparison form, and whether its wildcard also takes the bare prefix. */
interface LoosePattern<R> {
  readonly route: R;
  readonly segments: readonly RouteSegment[];
}

/** Decodes every percent-encoding of `path`; a malformed one (a route key may hold one) leaves it as it is. */
function decodeAll(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * `path` as a router with `loose` reads it, before any trailing slash is dropped: decoded, `;` parameters dropped,
 * slashes merged, case folded (each only when on). Decoding first: a decoded `%2F` or `%3B` is then a `/` or a `;`.
 */
function baseForm(path: string, loose: Looseness): string {
  let form = path;
  if (loose.decode && form.includes('%')) form = decodeAll(form);
  if (loose.dropMatrix && form.includes(';')) form = form.replace(/;[^/]*/g, '');
  if (loose.mergeSlashes && form.includes('//')) form = form.replace(/\/{2,}/g, '/');
  return loose.foldCase ? form.toLowerCase() : form;
}

/** `form` without its trailing slash when the router ignores one (the root `/` stays), else undefined. */
function withoutTrailingSlash(form: string, loose: Looseness): string | undefined {
  return loose.trailingSlash && form.length > 1 && form.endsWith('/') ? form.slice(0, -1) : undefined;
}

/**
 * A pattern's segments as a router with `loose` reads them: literals in base form (split again where decoding made a
 * `/`), empty literals dropped where slashes merge, and, where a trailing slash is optional, a last empty literal too.
 */
function looseSegments(segments: readonly RouteSegment[], loose: Looseness): RouteSegment[] {
  const out = segments.flatMap((segment): RouteSegment[] =>
    segment.kind === 'literal' ? baseForm(segment.text, loose).split('/').map((text) => ({ kind: 'literal', text })) : [segment]);
  const kept = loose.mergeSlashes ? out.filter((segment, index) => !(segment.kind === 'literal' && segment.text === '' && index < out.length - 1)) : out;
  const last = kept[kept.length - 1];
  return loose.trailingSlash && kept.length > 1 && last?.kind === 'literal' && last.text === '' ? kept.slice(0, -1) : kept;
}

/**
 * Whether the parts of a path in base form match loose segments: a literal equals its part, a named segment takes one
 * part (an empty one too when `emptyNamed`), a final wildcard the rest after its `/` (and, where a trailing slash is
 * optional, the bare prefix without that `/`: `/files` for `/files/*`).
 */
function matchesLoosely(segments: readonly RouteSegment[], parts: readonly string[], loose: Looseness): boolean {
  const wildcard = segments[segments.length - 1]?.kind === 'wildcard';
  const fixed = wildcard ? segments.length - 1 : segments.length;
  if (wildcard ? parts.length < fixed || (parts.length === fixed && !loose.trailingSlash) : parts.length !== fixed) return false;
  for (let index = 0; index < fixed; index++) {
    const segment = segments[index] as RouteSegment;
    const part = parts[index] as string;
    if (segment.kind === 'literal' ? part !== segment.text : part === '' && !loose.emptyNamed) return false;
  }
  return true;
}

/**
 * Builds the near-misses of `routes` (a route table's routes, their patterns with `segments`) for a router with the
 * loosenesses `looseness`; undefined when there are none to look for (no looseness, or no route). The routes'
 * comparison forms are computed once, here: a request costs its path's comparison form, a map look-up or two and, when
 * the table has patterns, one pass over its method's patterns.
 */
export function createNearMisses<R extends TableRoute>(routes: Iterable<R>, looseness: readonly RouterLooseness[]): NearMisses<R> | undefined {
  const on = new Set(looseness);
  const loose: Looseness = {
    foldCase: on.has('case-insensitive'),
    trailingSlash: on.has('optional-trailing-slash'),
    mergeSlashes: on.has('merged-slashes'),
    dropMatrix: on.has('matrix-parameters'),
    decode: on.has('percent-decoding'),
    emptyNamed: on.has('empty-named-segments'),
  };
  if (on.size === 0) return undefined;
  const exact = new Map<string, R>();
  const patterns = new Map<string, LoosePattern<R>[]>();
  for (const route of routes) {
    if (route.segments !== undefined) {
      const list = patterns.get(route.method) ?? [];
      list.push({ route, segments: looseSegments(route.segments, loose) });
      patterns.set(route.method, list);
      continue;
    }
    const form = baseForm(route.path, loose);
    for (const key of [form, withoutTrailingSlash(form, loose)]) {
      if (key !== undefined && !exact.has(`${route.method} ${key}`)) exact.set(`${route.method} ${key}`, route);
    }
  }
  if (exact.size === 0 && patterns.size === 0) return undefined;
  const headPatterns = [...(patterns.get('HEAD') ?? []), ...(patterns.get('GET') ?? [])];

  function onPatterns(method: string, form: string): R | undefined {
    const list = method === 'HEAD' ? headPatterns : patterns.get(method);
    if (list === undefined || list.length === 0) return undefined;
    const parts = form.slice(1).split('/');
    return list.find((pattern) => matchesLoosely(pattern.segments, parts, loose))?.route;
  }

  function near(method: string, form: string): R | undefined {
    return exact.get(`${method} ${form}`) ?? (method === 'HEAD' ? exact.get(`GET ${form}`) : undefined) ?? (patterns.size === 0 ? undefined : onPatterns(method, form));
  }

  return {
    routeNear(method, path) {
      if (path.charCodeAt(0) !== 0x2f) return undefined;
      const form = baseForm(path, loose);
      const stripped = withoutTrailingSlash(form, loose);
      return near(method, form) ?? (stripped === undefined ? undefined : near(method, stripped));
    },
  };
}

/**
 * The answer to a near-miss of `route` (CR-15.5): 404, a JSON body naming the route to request instead, no protocol
 * header; nothing is read, charged or deducted, and the request goes no further.
 */
export function nearMissRefused(route: Pick<TableRoute, 'key'>): RespondDecision {
  return respond(
    404,
    { 'content-type': 'application/json; charset=utf-8' },
    { error: NEAR_MISS, message: `Not found: this path is another spelling of the priced route ${route.key} (case, slashes or parameters), which is not forwarded; request the route's own path` },
    NEAR_MISS,
  );
}
