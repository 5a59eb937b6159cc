// Hono middleware: gates by the gate's route table, or prices the route it is declared on (Hono's router decides what matched); runs on any runtime Hono runs on.
import type { Context, MiddlewareHandler, Next } from 'hono';
import { ambiguousTarget, readRequestTarget, type Gate, type GatedRoute } from '../../gate/index.ts';
import type { PaymentResponse, RouteConfig } from '../../protocol/types.ts';
import { refusedBody, type BodyCheck } from './body-check.ts';
import { decisionResponse, gateRequestOf, registerPaid, settleNow, withHeaders } from './fetch-gate.ts';
import { peerAddressOf, requestTargetOf } from './request-facts.ts';
import { keyMethod, routeKeyPath, routePricing } from './route-key.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** The PaymentResponse of a request paid through credit402 (`c.get('credit402')`), set before the handler runs. */
    credit402: PaymentResponse | undefined;
  }
}

/** How the middleware reads what Hono's `Context` does not say. */
export interface Credit402HonoOptions {
  /**
   * The request target as received. Default: `c.env.incoming.url` on `@hono/node-server`, else the path and query
   * of `c.req.url`, which the runtime's URL parser has already normalised (ambiguous targets, CR-4.10, then cannot
   * be refused; the gate and Hono's router still read the same path).
   */
  target?: (c: Context) => string | undefined;
  /**
   * The client's address, which the gate's `newPaymentRateLimit` counts by. Default: the socket's peer on
   * `@hono/node-server`, else none (every client shares one bucket). Behind a proxy, read the address it names.
   */
  clientAddress?: (c: Context) => string | undefined;
  /**
   * Reads a gated request's body before anything is charged (CR-4.7), as the handler will: `(c) => c.req.json()`
   * (Hono keeps the parsed body, so the handler's `c.req.json()` reads it again at no cost). Throwing refuses the
   * request: a thrown `Response` is the answer, anything else a 400. Per route, a validator declared before
   * `credit402.route(…)` (`app.post(path, validator(…), credit402.route(…), handler)`) does the same.
   */
  body?: BodyCheck<Context>;
}

/** Options of one {@link Credit402Hono.route}. */
export interface Credit402HonoRouteOptions {
  /** The route's path for its key, in Hono's syntax or the route-key syntax; default: the path the route was declared with. */
  path?: string;
}

/** The credit402 middleware of one gate for Hono: see {@link credit402Hono}. */
export interface Credit402Hono {
  /**
   * The table form (`app.use(credit402.middleware())`, before the routes): a request no route of the gate's `routes`
   * prices (and no `OPTIONS` preflight of one) goes on untouched; a gated one is answered by the gate or served.
   */
  middleware(): MiddlewareHandler;
  /**
   * Prices the route it is declared on (`app.get('/api/users/:id', credit402.route({ amount: 500 }), handler)`);
   * `config` is validated here (an invalid one throws a Credit402ConfigError). Hono's router decides what matched;
   * the key is the method (HEAD as GET: Hono serves HEAD with the GET route) and the route's path in the route-key
   * syntax (`:id{[0-9]+}` is `:id`, a last `:rest{.*}` is `*`). A request the table middleware already served is
   * not priced again.
   */
  route(config: RouteConfig, options?: Credit402HonoRouteOptions): MiddlewareHandler;
  /**
   * Answers an ambiguous request target 400 (CR-4.10) before any route runs (`app.use(credit402.targetGuard())`,
   * first): with per-route gating, so that a free route never answers one either. Gates nothing.
   */
  targetGuard(): MiddlewareHandler;
}

/**
 * The credit402 middleware for Hono (4.x), on any runtime (Node through `@hono/node-server`, Bun, Deno, workerd).
 * A paid request's PaymentResponse is `c.get('credit402')`; its answer (the handler's, or the 500 of Hono's error
 * handler when it threw) gets `payment-response` and is settled with its status once the handler is done, which
 * decides any refund (`refundOnHandlerError`). On Node, put `applyTargetReading` of `credit402/node-http` in front of
 * `@hono/node-server`'s listener so that targets it refuses itself (`\`, other forms) get the gate's 400 too.
 *
 * ```ts
 * const credit402 = credit402Hono(gate);
 * app.get('/api/weather', credit402.route({ amount: 500 }), (c) => c.json({ credits: c.get('credit402')?.creditsRemaining }));
 * ```
 */
export function credit402Hono(gate: Gate, options: Credit402HonoOptions = {}): Credit402Hono {
  const factsOf = (c: Context) => ({
    target: options.target?.(c) ?? requestTargetOf(c.req.raw, c.env),
    clientAddress: options.clientAddress ? options.clientAddress(c) : peerAddressOf(c.env),
  });

  /** Reads the body when asked (a gated route), asks the gate, and answers, passes or serves. */
  async function decide(c: Context, next: Next, facts: { target: string; clientAddress: string | undefined; route: GatedRoute | undefined }): Promise<Response | undefined> {
    if (facts.route !== undefined) {
      const refused = await refusedBody(options.body, c);
      if (refused !== undefined) return refused;
    }
    const decision = await gate.handle(gateRequestOf(c.req.raw, facts));
    if (decision.action === 'respond') return decisionResponse(decision, c.req.method);
    if (decision.action === 'pass') {
      await next();
      return undefined;
    }
    c.set('credit402', decision.payment);
    registerPaid(c.req.raw, decision);
    try {
      await next();
    } catch (error) {
      await settleNow(c.req.raw, { threw: true });
      throw error;
    }
    const answer = withHeaders(c.res, decision.headers);
    if (answer !== c.res) c.res = answer;
    await settleNow(c.req.raw, { status: answer.status });
    return undefined;
  }

  return {
    middleware() {
      return async function credit402(c, next) {
        const facts = factsOf(c);
        const reading = readRequestTarget(facts.target);
        if (!reading.ok) return decisionResponse(ambiguousTarget(reading.reason), c.req.method);
        const route = gate.match(c.req.method, reading.path);
        if (route === undefined && c.req.method !== 'OPTIONS') return next();
        return decide(c, next, { ...facts, route });
      };
    },
    route(config, routeOptions = {}) {
      const priced = routePricing(gate, config, 'credit402.route()');
      const declared = routeOptions.path === undefined ? undefined : routeKeyPath(routeOptions.path);
      return async function credit402Route(c, next) {
        if (c.get('credit402') !== undefined) return next();
        const facts = factsOf(c);
        const reading = readRequestTarget(facts.target);
        if (!reading.ok) return decisionResponse(ambiguousTarget(reading.reason), c.req.method);
        // The route Hono matched for this middleware: its own declaration's path.
        const route = priced(`${keyMethod(c.req.method)} ${declared ?? routeKeyPath(c.req.routePath)}`);
        return decide(c, next, { ...facts, route });
      };
    },
    targetGuard() {
      return async function credit402TargetGuard(c, next) {
        const reading = readRequestTarget(factsOf(c).target);
        if (!reading.ok) return decisionResponse(ambiguousTarget(reading.reason), c.req.method);
        return next();
      };
    },
  };
}
