// Per-route gating on Express 4/5: `credit402.route({ amount })` on a route, so the application's router decides what matched and the gate prices it.
import type { ServerResponse } from 'node:http';
import { Credit402ConfigError } from '../config/config-error.ts';
import type { GatedRoute } from '../gate/context.ts';
import type { Gate } from '../gate/gate.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { applyCredit402, applyTargetReading, type GateIncomingMessage } from './node-http.ts';
import { keyPathOf } from './route-key-path.ts';

type Next = (error?: unknown) => void;
/** What the middleware reads of Express's request: the mount path and the route the router matched. */
type Request = GateIncomingMessage & { baseUrl?: string; route?: { path?: unknown; methods?: Record<string, boolean | undefined> } };
type Response = ServerResponse & { locals?: Record<string, unknown> };
/** A connect-style middleware, as Express 4 and 5 take it. */
export type Credit402Handler = (req: Request, res: Response, next: Next) => void | Promise<void>;

/** The per-route form of credit402 on one gate: see {@link credit402Express}. */
export interface Credit402Express {
  /**
   * Middleware that prices the route it is declared on (`app.get('/api/users/:id', credit402.route({ amount: 500 }),
   * handler)`). `config` is a route's configuration (`amount`, `currency`, `minTopUp`, `maxTopUp`, `description`),
   * validated here: an invalid one throws a Credit402ConfigError with its code. The route key in events and records
   * is the request's method and `req.baseUrl + req.route.path`, the route's path in the route-key syntax when it has
   * that shape (`/files/{*rest}` is keyed `/files/*`; see route-key-path.ts), else in Express's (HEAD on a GET route
   * named as GET). An unpaid or refused request is answered by the gate; a paid one gets `payment-response`,
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

/** The key `route()` validates a configuration under before it knows the route; its name is replaced in errors. */
const UNDECLARED_KEY = 'GET /credit402.route';
/** How many route keys one `route()` middleware keeps priced; past that (a mount path with parameters), each request prices its own. */
const MAX_CACHED_KEYS = 1_000;

/** Validates `config` as `gate.defineRoute` does; the error names `credit402.route()` instead of a route key. */
function validated(gate: Gate, config: RouteConfig): void {
  try {
    gate.defineRoute(UNDECLARED_KEY, config);
  } catch (error) {
    if (!(error instanceof Credit402ConfigError)) throw error;
    const message = error.message.replace(`${error.code}: `, '').replace(`route "${UNDECLARED_KEY}"`, 'credit402.route()');
    throw new Credit402ConfigError(error.code, message);
  }
}

/** A route path in Express's syntax as a key's path: a RegExp or a list as text, characters a key cannot hold percent-encoded. */
function pathLabel(path: string): string {
  const visible = path.replace(/[^!"$-><@-~]/gu, (char) => [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  return visible.startsWith('/') ? visible : `/${visible}`;
}

/** The key of the route a request reached: its method (HEAD on a route without HEAD named GET, as the router ran the GET route) and `baseUrl + route.path`. */
function routeKey(req: Request): string {
  const method = req.method === 'HEAD' && req.route?.methods?.head !== true ? 'GET' : (req.method ?? '');
  const routePath = req.route?.path;
  const path = Array.isArray(routePath) ? routePath.join(',') : routePath === undefined ? '' : String(routePath);
  return `${method} ${pathLabel(`${req.baseUrl ?? ''}${keyPathOf(path)}`)}`;
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
      validated(gate, config);
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
          const applied = await applyCredit402(gate, req, res, { route: pricedRoute(routeKey(req)) });
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
