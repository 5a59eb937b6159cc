// Per-route gating on Express 4/5: `credit402.route({ amount })` on a route, so the application's router decides what matched and the gate prices it.
import type { ServerResponse } from 'node:http';
import { validateRouteConfig, type Gate, type GatedRoute } from '../gate/index.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { applyCredit402, applyTargetReading, type GateIncomingMessage } from './node-http.ts';
import { keyPathOf } from './route-key-path.ts';

type Next = (error?: unknown) => void;
/** What the middleware reads of Express's request: the mount path, the route the router matched and the app it runs in. */
type Request = GateIncomingMessage & { baseUrl?: string; route?: { path?: unknown; methods?: Record<string, boolean | undefined> }; app?: unknown };
type Response = ServerResponse & { locals?: Record<string, unknown> };
/** A connect-style middleware, as Express 4 and 5 take it. */
export type Credit402Handler = (req: Request, res: Response, next: Next) => void | Promise<void>;

/** The per-route form of credit402 on one gate: see {@link credit402Express}. */
export interface Credit402Express {
  /**
   * Middleware that prices the route it is declared on (`app.get('/api/users/:id', credit402.route({ amount: 500 }),
   * handler)`). `config` is a route's configuration (`amount`, `currency`, `minTopUp`, `maxTopUp`, `description`),
   * validated here: an invalid one throws a Credit402ConfigError with its code. The route key in events, records and
   * metrics is the request's method and the route's full pattern: the mounts' patterns (`/t/:tenant`, not the request's
   * `/t/acme`) and `req.route.path`, in the route-key syntax when it has that shape (`/files/{*rest}` is keyed
   * `/files/*`; see route-key-path.ts), else in Express's (HEAD on a GET route named as GET). An unpaid or refused request is answered by the gate; a paid one gets `payment-response`,
   * its PaymentResponse on `res.locals.credit402`, and its final status reported to the gate, which decides on a
   * refund (`refundOnHandlerError`). A request the table middleware (`credit402Middleware`) already served is not
   * priced again.
   */
  route(config: RouteConfig): Credit402Handler;
  /**
   * Middleware to mount before the routes (`app.use(credit402.targetGuard())`): answers an ambiguous request target
   * 400 (spec CR-4.10) and hands the router the request path the gate reads (`/api/%77eather` is routed as
   * `/api/weather`, an absolute-form target as its path: CR-4.2), so that the router and the gate agree on every
   * target (CR-4.9). It reads no `payment` header and gates nothing.
   */
  targetGuard(): Credit402Handler;
}

/** How many route keys one `route()` middleware keeps priced; past that (a mount path with parameters), each request prices its own. */
const MAX_CACHED_KEYS = 1_000;
/** Validates `config` with the gate's own rules, the errors naming `credit402.route()` (the route is not known yet). */
function validated(config: RouteConfig): void {
  validateRouteConfig(config, 'credit402.route()');
}

/** A route path in Express's syntax as a key's path: a RegExp or a list as text, characters a key cannot hold percent-encoded. */
function pathLabel(path: string): string {
  const visible = path.replace(/[^!"$-><@-~]/gu, (char) => [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  return visible.startsWith('/') ? visible : `/${visible}`;
}

/** A layer of an Express router, as Express 4 (`regexp`, `keys`) and Express 5's router 2.x (`matchers`, `slash`, 2.3: `rawPath`) build it. */
interface Layer {
  route?: unknown;
  handle?: unknown;
  regexp?: RegExp & { fast_slash?: boolean };
  keys?: Array<{ name?: unknown }>;
  slash?: boolean;
  matchers?: unknown;
  rawPath?: unknown;
}
type Matcher = (path: string) => false | { path: string; params: Record<string, unknown> };
type Router = { stack?: unknown };
type App = { _router?: Router; router?: Router; parent?: unknown };

/** What a search looks for at the end of the mounts: the route the request reached, or the mount of a sub-app. */
const MOUNTED_APP = Symbol('a mounted sub-app');
type Leaf = unknown;

/** A sub-app's mount (Express 4 and 5 mount an app through a function of this name). */
const isAppMount = (layer: Layer): boolean => typeof layer.handle === 'function' && layer.handle.name === 'mounted_app';

/** The router of an app: `_router` (Express 4; its `router` getter throws) or `router` (Express 5). */
function routerOf(app: App): Router | undefined {
  if (app._router !== undefined) return app._router;
  try {
    return app.router;
  } catch {
    return undefined;
  }
}

/** `text` with each span replaced by its name: the concrete mount path back in its pattern's syntax. */
function withNames(text: string, spans: Array<{ start: number; end: number; name: string }>): string {
  let out = '';
  let at = 0;
  for (const span of spans.sort((a, b) => a.start - b.start)) {
    if (span.start < at) continue;
    out += text.slice(at, span.start) + span.name;
    at = span.end;
  }
  return out + text.slice(at);
}

const FLAGGED = new WeakMap<RegExp, RegExp>();

/** Express 4: the layer's regular expression on `base`, each parameter's text put back as `:name` (`*` for unnamed groups). */
function matchByRegexp(regexp: RegExp, keys: Layer['keys'], base: string): { length: number; pattern: string } | undefined {
  let indexed = FLAGGED.get(regexp);
  if (indexed === undefined) {
    indexed = new RegExp(regexp.source, `${regexp.flags.replace(/[gyd]/g, '')}d`);
    FLAGGED.set(regexp, indexed);
  }
  const match = indexed.exec(base);
  if (match === null || match.index !== 0 || match.indices === undefined) return undefined;
  const text = match[0].replace(/\/$/, '');
  const spans = [];
  for (let group = 1; group < match.length; group++) {
    const span = match.indices[group];
    if (span === undefined) continue;
    const name = keys?.[group - 1]?.name;
    spans.push({ start: span[0], end: span[1], name: typeof name === 'string' ? `:${name}` : '*' });
  }
  const pattern = withNames(text, spans);
  // A case-insensitive mount keys every spelling alike.
  return { length: text.length, pattern: regexp.flags.includes('i') ? pattern.toLowerCase() : pattern };
}

/** Router 2.x without the pattern (2.2): the matched text with each segment that is a parameter's value put back as `:name`. */
function patternFromParams(text: string, params: Record<string, unknown>): string {
  const unused = new Map(Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return text.split('/').map((segment) => {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // left as it is
    }
    for (const [name, value] of unused) {
      if (value === decoded) {
        unused.delete(name);
        return `:${name}`;
      }
    }
    return segment;
  }).join('/');
}

/** The part of `base` a mount layer matches, and that part in the mount's route pattern; undefined when it does not match. */
function matchMount(layer: Layer, base: string): { length: number; pattern: string } | undefined {
  if (layer.slash === true || layer.regexp?.fast_slash === true) return { length: 0, pattern: '' };
  if (layer.regexp instanceof RegExp) return matchByRegexp(layer.regexp, layer.keys, base);
  if (!Array.isArray(layer.matchers)) return undefined;
  for (const [index, matcher] of (layer.matchers as unknown[]).entries()) {
    if (typeof matcher !== 'function') continue;
    const match = (matcher as Matcher)(base);
    if (match === false || !base.startsWith(match.path)) continue;
    const text = match.path.replace(/\/$/, '');
    const raw = Array.isArray(layer.rawPath) ? layer.rawPath[index] : layer.rawPath;
    return { length: text.length, pattern: typeof raw === 'string' ? raw.replace(/\/$/, '') : patternFromParams(text, match.params) };
  }
  return undefined;
}

/**
 * The route pattern of the mounts in `router` between it and `leaf` (the route the request reached, or a sub-app's
 * mount), whose concrete text is `base` (`req.baseUrl` below `router`); undefined when no mount of `router` leads there.
 */
function mountPattern(router: Router | undefined, base: string, leaf: Leaf, depth = 0): string | undefined {
  if (router === undefined || !Array.isArray(router.stack) || depth > 16) return undefined;
  for (const layer of router.stack as Layer[]) {
    if (typeof layer !== 'object' || layer === null) continue;
    if (layer.route !== undefined) {
      if (base === '' && layer.route === leaf) return '';
      continue;
    }
    const appMount = isAppMount(layer);
    const inner = layer.handle as Router | undefined;
    if (!appMount && !Array.isArray(inner?.stack)) continue;
    const matched = matchMount(layer, base);
    if (matched === undefined) continue;
    if (appMount) {
      if (leaf === MOUNTED_APP && matched.length === base.length) return matched.pattern;
      continue;
    }
    const rest = mountPattern(inner, base.slice(matched.length), leaf, depth + 1);
    if (rest !== undefined) return matched.pattern + rest;
  }
  return undefined;
}

/** Where `base` may be cut between a sub-app's mount and its own routers: at its start, at each `/`, at its end. */
function cuts(base: string): number[] {
  const out = [0];
  for (let i = 1; i < base.length; i++) if (base[i] === '/') out.push(i);
  if (base.length > 0) out.push(base.length);
  return out;
}

/** The pattern of `base` through the apps (innermost first, each mounted in the next) down to `leaf`. */
function appsPattern(apps: App[], base: string, leaf: Leaf): string | undefined {
  const [app, ...parents] = apps;
  if (app === undefined) return undefined;
  if (parents.length === 0) return mountPattern(routerOf(app), base, leaf);
  for (const cut of cuts(base)) {
    const inner = mountPattern(routerOf(app), base.slice(cut), leaf);
    if (inner === undefined) continue;
    const outer = appsPattern(parents, base.slice(0, cut), MOUNTED_APP);
    if (outer !== undefined) return outer + inner;
  }
  return undefined;
}

/**
 * `req.baseUrl` in its route pattern (`/t/acme` under `app.use('/t/:tenant', router)` is `/t/:tenant`), found in the
 * app's router stack (Express 4 and 5, nested routers and sub-apps); undefined when it cannot be found there.
 */
function basePattern(req: Request): string | undefined {
  const base = req.baseUrl ?? '';
  if (base === '') return '';
  const apps: App[] = [];
  // An Express app is a function.
  for (let app = req.app; (typeof app === 'function' || typeof app === 'object') && app !== null && apps.length < 8; app = (app as App).parent) apps.push(app as App);
  return appsPattern(apps, base, req.route);
}

/** A route's path as Express declared it, a list joined with `,`. */
function declaredPath(routePath: unknown): string {
  return Array.isArray(routePath) ? routePath.join(',') : routePath === undefined ? '' : String(routePath);
}

/**
 * The key of the route a request reached: its method (HEAD on a route without HEAD named GET, as the router ran the
 * GET route) and the route pattern of the mounts followed by `route.path`, so that every request to a route under
 * `/t/:tenant` names it alike in records and metrics. A mount its router stack does not show is named by
 * `req.baseUrl`, as it was received; `bases` remembers what each base was found to be.
 */
function routeKey(req: Request, bases: Map<string, string>): string {
  const method = req.method === 'HEAD' && req.route?.methods?.head !== true ? 'GET' : (req.method ?? '');
  const base = req.baseUrl ?? '';
  let pattern = bases.get(base);
  if (pattern === undefined) {
    pattern = basePattern(req) ?? base;
    if (bases.size < MAX_CACHED_KEYS) bases.set(base, pattern);
  }
  return `${method} ${pathLabel(keyPathOf(`${pattern}${declaredPath(req.route?.path)}`))}`;
}

/**
 * The per-route form of credit402 for Express 4 and 5 (and routers that set `req.route` and `req.baseUrl`): the
 * framework's router decides what matched, the gate only prices it.
 *
 * ```ts
 * const credit402 = credit402Express(gate);
 * app.use(credit402.targetGuard());
 * app.get('/api/users/:id', credit402.route({ amount: 500, description: 'A user' }), (req, res) => {
 *   res.json({ id: req.params.id, creditsRemaining: res.locals.credit402.creditsRemaining });
 * });
 * ```
 */
export function credit402Express(gate: Gate): Credit402Express {
  return {
    route(config) {
      validated(config);
      const routes = new Map<string, GatedRoute>();
      const bases = new Map<string, string>();
      const pricedRoute = (key: string): GatedRoute => {
        const known = routes.get(key);
        if (known !== undefined) return known;
        const route = gate.defineRoute(key, config);
        if (routes.size < MAX_CACHED_KEYS) routes.set(key, route);
        return route;
      };
      return async function credit402Route(req, res, next) {
        try {
          if (res.locals?.credit402 !== undefined) return next();
          const applied = await applyCredit402(gate, req, res, { route: pricedRoute(routeKey(req, bases)) });
          if (applied.answered) return;
          if (applied.payment && res.locals) res.locals.credit402 = applied.payment;
          next();
        } catch (error) {
          next(error);
        }
      };
    },
    targetGuard() {
      return function credit402TargetGuard(req, res, next) {
        if (!applyTargetReading(req, res, { mountPath: req.baseUrl ?? '' })) next();
      };
    },
  };
}
