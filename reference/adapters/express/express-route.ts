// Per-route gating on Express 4/5: `credit402.route({ amount })` on a route, so the application's router decides what matched and the gate prices it.
import type { ServerResponse } from 'node:http';
import { Credit402ConfigError } from '../../config/config-error.ts';
import { validateRouteConfig, type Gate, type GatedRoute } from '../../gate/index.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { applyCredit402, applyTargetReading, type GateIncomingMessage } from '../node-http/node-http.ts';
import { keyPathOf } from '../route-key-path.ts';

type Next = (error?: unknown) => void;
/** What the middleware reads of Express's request (its public API): the mount path, the route the router matched and the app it runs in. */
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
   * metrics is the request's method and the route's full pattern: the mount's pattern and `req.route.path`, in the
   * route-key syntax when it has that shape (`/files/{*rest}` is keyed `/files/*`; see route-key-path.ts), else in
   * Express's (HEAD on a GET route named as GET). Express does not say which pattern a router was mounted at: under a
   * mount with parameters (`app.use('/t/:tenant', router)`) declare it, `credit402.route(config, { mount: '/t/:tenant' })`,
   * or each tenant gets its own key; sub-apps (`app.use('/s/:shop', shop)`) are read from their `mountpath`. An unpaid or refused request is answered by the gate; a paid one gets `payment-response`,
   * its PaymentResponse on `res.locals.credit402`, and its final status reported to the gate, which decides on a
   * refund (`refundOnHandlerError`). A request the table middleware (`credit402Middleware`) already served is not
   * priced again.
   */
  route(config: RouteConfig, options?: Credit402RouteOptions): Credit402Handler;
  /**
   * Middleware to mount before the routes (`app.use(credit402.targetGuard())`): answers an ambiguous request target
   * 400 (spec CR-4.10) and hands the router the request path the gate reads (`/api/%77eather` is routed as
   * `/api/weather`, an absolute-form target as its path: CR-4.2), so that the router and the gate agree on every
   * target (CR-4.9). It reads no `payment` header and gates nothing.
   */
  targetGuard(): Credit402Handler;
}

/** Options of one {@link Credit402Express.route}. */
export interface Credit402RouteOptions {
  /**
   * The pattern of the path the route's router is mounted at, when it has parameters (`/t/:tenant` for
   * `app.use('/t/:tenant', router)`): the route key names it instead of each request's `/t/acme`. A request whose
   * mount path is not an instance of it is refused with ERR_ROUTE_MOUNT (a 500, nothing charged).
   */
  mount?: string;
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

/** A mount pattern in the route-key syntax: `/`-separated literal segments and `:name` parameters, without a final `/`. */
const MOUNT = /^(\/([A-Za-z0-9\-._~!$&'()+,;=@%]+|:[A-Za-z_][A-Za-z0-9_]*))+$/;

/** Validates a declared mount pattern (`/t/:tenant`), the errors naming `credit402.route()`. */
function validatedMount(mount: unknown): string | undefined {
  if (mount === undefined) return undefined;
  if (typeof mount !== 'string' || !MOUNT.test(mount)) {
    throw new Credit402ConfigError('ERR_ROUTE_MOUNT', `credit402.route(): mount must be a path of literal segments and :name parameters such as "/t/:tenant", without a final "/"; got ${JSON.stringify(mount)}`);
  }
  return mount;
}

/** Whether the concrete `base` (`req.baseUrl`, `/t/acme`) is an instance of `pattern` (`/t/:tenant`), segment by segment. */
function instanceOf(base: string, pattern: string): boolean {
  const concrete = base.split('/');
  const declared = pattern.split('/');
  if (concrete.length !== declared.length) return false;
  return declared.every((segment, index) => {
    const text = concrete[index] ?? '';
    return segment.startsWith(':') ? text !== '' : segment.toLowerCase() === text.toLowerCase();
  });
}

/** What the middleware reads of a (sub-)app: its public `mountpath` and `parent`. */
type App = { mountpath?: unknown; parent?: unknown };

/**
 * The pattern of the sub-apps' mounts the request went through (`app.use('/s/:shop', shop)`: `shop.mountpath` is
 * `/s/:shop`), outermost first, when every one is a single path; Express's public `mountpath` and `parent`.
 */
function subAppsPattern(app: unknown): string | undefined {
  const paths: string[] = [];
  for (let current = app as App | undefined; typeof current === 'function' || (typeof current === 'object' && current !== null); current = current.parent as App | undefined) {
    if (current.parent === undefined) break;
    if (typeof current.mountpath !== 'string' || paths.length >= 8) return undefined;
    paths.unshift(current.mountpath === '/' ? '' : current.mountpath.replace(/\/$/, ''));
  }
  return paths.join('');
}

/**
 * `req.baseUrl` in its route pattern: the declared `mount` (checked against the request), else the sub-apps' mount
 * paths where they begin it and the rest as received, else `req.baseUrl` as received (right for mounts without
 * parameters).
 */
function basePattern(req: Request, mount: string | undefined): string {
  const base = req.baseUrl ?? '';
  if (mount !== undefined) {
    if (!instanceOf(base, mount)) throw new Credit402ConfigError('ERR_ROUTE_MOUNT', `credit402.route(): the request's mount path ${JSON.stringify(base)} is not an instance of the declared mount ${JSON.stringify(mount)}`);
    return mount;
  }
  if (base === '') return '';
  const apps = subAppsPattern(req.app);
  if (apps === undefined || apps === '') return base;
  // Routers mounted inside the innermost sub-app follow its mount path: kept as received.
  const depth = apps.split('/').length;
  const prefix = base.split('/').slice(0, depth).join('/');
  return instanceOf(prefix, apps) ? apps + base.slice(prefix.length) : base;
}

/** A route's path as Express declared it, a list joined with `,`. */
function declaredPath(routePath: unknown): string {
  return Array.isArray(routePath) ? routePath.join(',') : routePath === undefined ? '' : String(routePath);
}

/**
 * The key of the route a request reached: its method (HEAD on a route without HEAD named GET, as the router ran the
 * GET route) and the route pattern of the mounts followed by `route.path`, so that every request to a route under
 * `/t/:tenant` names it alike in records and metrics.
 */
function routeKey(req: Request, mount: string | undefined): string {
  const method = req.method === 'HEAD' && req.route?.methods?.head !== true ? 'GET' : (req.method ?? '');
  return `${method} ${pathLabel(keyPathOf(`${basePattern(req, mount)}${declaredPath(req.route?.path)}`))}`;
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
    route(config, options = {}) {
      validated(config);
      const mount = validatedMount(options.mount);
      const routes = new Map<string, GatedRoute>();
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
          const applied = await applyCredit402(gate, req, res, { route: pricedRoute(routeKey(req, mount)) });
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
