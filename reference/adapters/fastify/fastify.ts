// Fastify 5 plugin: hooks that run after Fastify's router, body parsing and validation, and decide on the route the router matched (table routes, and routes declared with `config: { credit402 }`), then apply the decision.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ambiguousTarget, createRouterAgreement, type GatedRoute, readRequestTarget, type ServeDecision, type ServeOutcome } from '../../gate/index.ts';
import type { PaymentResponse, RouteConfig } from '../../protocol/types.ts';
import type { Credit402FastifyOptions } from './fastify-plugin-type.ts';
import { createRoutePricing, routeForMethod, type PricedMethods } from './fastify-route-pricing.ts';

export type { Credit402FastifyOptions } from './fastify-plugin-type.ts';
export { credit402WebhookFastify, type Credit402WebhookFastifyOptions } from './fastify-webhook.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The PaymentResponse of a paid request, set before the handler runs. */
    credit402?: PaymentResponse;
  }
  interface FastifyContextConfig {
    /**
     * Prices the route (per-route gating, with the credit402 plugin registered): `{ amount, currency?, minTopUp?,
     * maxTopUp?, description? }`, validated when the route is declared.
     */
    credit402?: RouteConfig;
  }
}

/** The `settle` of each paid request still being answered, under a key of the plugin's own (not a public decoration). */
const SETTLE = Symbol('credit402.settle');

/** A request as the plugin sees it: with the `settle` of its paid pass until the answer is finished. */
type SettlingRequest = FastifyRequest & { [SETTLE]?: ServeDecision['settle'] | undefined };

/** Marks the config of a route whose declaration the plugin priced: its own preHandler hook decides on it. */
const PRICED = Symbol('credit402.priced');

const plugin: FastifyPluginAsync<Credit402FastifyOptions> = async (fastify, { gate }) => {
  fastify.decorateRequest('credit402', undefined);
  fastify.decorateRequest(SETTLE, undefined);

  /**
   * Asks the gate about the request (on `route` when the router's route is priced) and applies the decision: an answer
   * is sent and ends the request's hooks (`done` is not called); otherwise Fastify goes on. Callback style, so that a
   * paid request costs no promise of its own beside the gate's.
   */
  function decide(request: FastifyRequest, reply: FastifyReply, url: string, route: GatedRoute | undefined, done: HookHandlerDoneFunction): void {
    gate.handle({ method: request.method, url, route, paymentHeader: request.headers.payment, clientAddress: request.ip, origin: request.headers.origin }).then(
      (decision) => {
        try {
          if (decision.action === 'respond') {
            reply.code(decision.status).headers(decision.headers).send(decision.body);
            return;
          }
          if (decision.action === 'serve') {
            reply.headers(decision.headers);
            request.credit402 = decision.payment;
            (request as SettlingRequest)[SETTLE] = decision.settle;
          }
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
      done,
    );
  }

  // Per-route gating: a route declared with `config: { credit402 }` is priced when declared (an invalid configuration
  // throws there) and gets a hook of its own that decides on it; the router has chosen it, the gate only prices it.
  const pricing = createRoutePricing(gate);
  const gateOn = (priced: PricedMethods): preHandlerHookHandler => function credit402Route(request, reply, done) {
    decide(request, reply, request.url, routeForMethod(priced, request.method), done);
  };
  fastify.addHook('onRoute', (route) => {
    // Priced already when the plugin is registered again in an inner scope: one hook decides, once.
    if (route.config !== undefined && PRICED in route.config) return;
    const priced = pricing.declare(route);
    if (priced === undefined) return;
    route.config = Object.assign({}, route.config, { [PRICED]: true });
    route.preHandler = [...[route.preHandler ?? []].flat(), gateOn(priced)];
  });
  const routerDecidedTarget = createRouterAgreement(gate);
  /** The routes with `config.credit402` declared where the plugin could not see them (before it was registered), priced on their first request. */
  const latePriced = new WeakMap<object, PricedMethods>();

  // An ambiguous target (CR-4.10) is refused as soon as the request arrives, before its body is read: nothing is read,
  // charged or deducted for it, whatever the route.
  fastify.addHook('onRequest', (request, reply, done) => {
    const reading = readRequestTarget(request.url);
    if (reading.ok) return done();
    const answer = ambiguousTarget(reading.reason);
    reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  // The paid decision waits until Fastify has parsed and validated the body: a request Fastify refuses before the
  // handler (a body it cannot parse, too large, of a type it has no parser for, or failing the route's schema) is
  // answered by Fastify and never charged, and a deduction is made only for a request that reaches its handler (CR-4.7).
  fastify.addHook('preHandler', (request, reply, done) => {
    // `routeOptions` is built anew on each read: read once. Its `url` is the matched route's path, undefined on a 404.
    const config = request.routeOptions.config;
    if (config?.credit402 !== undefined) {
      if (PRICED in config) return done();
      const priced = latePriced.get(config) ?? pricing.declare({ method: config.method ?? request.method, url: config.url ?? request.url, config });
      if (priced !== undefined) latePriced.set(config, priced);
      return decide(request, reply, request.url, priced && routeForMethod(priced, request.method), done);
    }
    // The router has already chosen the handler: the gate decides on that route, so both agree (spec CR-4.9).
    const target = routerDecidedTarget(request.method, request.url, config?.url ?? null);
    if (target === 'free') return done();
    return decide(request, reply, target.url, target.route, done);
  });
  // The answer is sent: report its status to the engine (a handler that threw was answered by Fastify's error handler).
  fastify.addHook('onResponse', (request, reply, done) => {
    if ((request as SettlingRequest)[SETTLE] === undefined) return done();
    credit402Settle(request, { status: reply.statusCode }).then(() => done(), done);
  });
};

/**
 * The credit402 Fastify plugin; register it with `{ gate }` (awaited) before the gated routes. Its hooks run after
 * Fastify's router, which decides what matched:
 * - an ambiguous target (spec CR-4.10) is answered 400 when it arrives (onRequest);
 * - a route declared with `config: { credit402: { amount, description? } }` is priced by the gate when it is declared
 *   (an invalid configuration throws a Credit402ConfigError from `app.get(…)`, or from `ready()` inside a plugin) and
 *   gets a preHandler hook that decides on it, with its HEAD route priced as the GET route; a route declared before
 *   the plugin was registered is priced on its first request;
 * - a route of the gate's `routes` table is decided on that route; every other route is free.
 * The paid decision (challenge, payment, deduction) is made in preHandler, once Fastify has parsed and validated the
 * body: what Fastify refuses before the handler (400, 413, 415, a schema's 400) is never charged (spec CR-4.7), and
 * a hook of the application that may refuse a request should be added before the plugin, so that it runs first.
 * A paid request's PaymentResponse is on `request.credit402`, and its final status is reported to the gate (or the
 * outcome the application reports earlier with {@link credit402Settle}).
 */
export const credit402Fastify = fp(plugin, { fastify: '5.x', name: 'credit402' });

/** What settling a request that owes nothing resolves: one resolved promise, shared. */
const NOTHING_TO_SETTLE: Promise<void> = Promise.resolve();

/**
 * Settles a paid request now with `outcome`, instead of with its answer's status once the answer is sent: for a proxy
 * whose upstream gave no answer (`{ status: 502 | 504, upstreamFailed: true }`), which gives the whole deduction back
 * (spec CR-15.3), or a handler that knows its own outcome early. The request is settled once: later settlements, and
 * the plugin's own when the answer is sent, do nothing. Resolves at once for a request that was not paid (no
 * `request.credit402`) or is settled already; never rejects (a store failure is reported to the gate's `onError`).
 */
export function credit402Settle(request: FastifyRequest, outcome: ServeOutcome): Promise<void> {
  const settle = (request as SettlingRequest)[SETTLE];
  if (settle === undefined) return NOTHING_TO_SETTLE;
  (request as SettlingRequest)[SETTLE] = undefined;
  return settle(outcome);
}

/**
 * Fastify's `frameworkErrors` option for apps with the plugin (`Fastify({ frameworkErrors: credit402FrameworkErrors })`).
 * Fastify answers a target its router cannot read (`FST_ERR_BAD_URL`, e.g. `http://x/a#b`) before any hook runs: an
 * ambiguous one (spec CR-4.10) gets the gate's 400 here, any other framework error goes to the error handler.
 */
export function credit402FrameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const reading = readRequestTarget(request.url);
  if (reading.ok) {
    void reply.send(error);
    return;
  }
  const answer = ambiguousTarget(reading.reason);
  void reply.code(answer.status).headers(answer.headers).send(answer.body);
}
