// The gate engine: routing, header decoding and the credits path; knows nothing of any HTTP framework.
import { isClientIdShape } from '../protocol/identity.ts';
import { parsePaymentHeader } from '../protocol/payment-payload.ts';
import { PaymentError } from '../processor/processor.ts';
import { payByCard } from './card-payment.ts';
import { forRequest, repeatLeaseMs, type GateContext, type GatedRoute } from './context.ts';
import { createIsoClock } from './iso-clock.ts';
import type { GateDecision, GateRequest } from './decision.ts';
import { StoreUnavailableError } from './failures.ts';
import { withStoreDeadlines } from '../stores/store-deadline.ts';
import { validateGateOptions, type GateOptions } from './options.ts';
import { createEmitter, NO_EVENTS, withStoreTiming, type Emit } from './events.ts';
import { preflight, withCors } from './cors.ts';
import { createRateLimiter, rateLimited, type RateLimiter } from './rate-limit.ts';
import { buildChallenges, paymentError, serviceUnavailable } from './responses.ts';
import { ambiguousTarget, readRequestTarget } from './request-target.ts';
import { createRouteTable } from './route-table.ts';
import { resolveRoute, resolveRoutes, type ResolvedRoute } from './routes.ts';
import type { PaymentPayload, RouteConfig } from '../protocol/types.ts';
import { spendBalance } from './spend.ts';

/** A configured gate: decides what happens to each request. */
export interface Gate {
  /** Decides one request; rejects only on a programming error, never on bad input or an outage. */
  handle(request: GateRequest): Promise<GateDecision>;
  /** The gated routes of the `routes` table with their defaults applied, keyed `<METHOD> <path>`. */
  readonly routes: ReadonlyMap<string, GatedRoute>;
  /** The table's route for a method and request path (CR-4.2, CR-4.8, CR-4.12, CR-4.13), if any. */
  match(method: string, path: string): GatedRoute | undefined;
  /**
   * Prices a route the application's router declares (CR-4.15): validates `config` like a table entry and returns
   * the route to pass as `request.route`. `key` is `<METHOD> <path>` with the path in the router's own syntax
   * (`GET /api/users/:id`); it names the route in events and records and is not matched by the gate. Throws a
   * Credit402ConfigError when `config` is invalid.
   */
  defineRoute(key: string, config: RouteConfig): GatedRoute;
}

const PASS: GateDecision = Object.freeze({ action: 'pass' });

/** The decision for a payload whose balance did not pay (none named, or too low): a challenge, a 429, or a new card payment. */
function unpaid(ctx: GateContext, route: GatedRoute, payload: PaymentPayload, request: GateRequest, limiter: RateLimiter | undefined): GateDecision | Promise<GateDecision> {
  const { clientId, paymentMethodId, topUpAmount, requestId } = payload;
  if (paymentMethodId === undefined) {
    return clientId === undefined ? route.challenges.plain : route.challenges.insufficient;
  }
  // The new-payment path is the one that costs processor calls: limited before any of them.
  const verdict = limiter?.hit(request.clientAddress);
  if (verdict === undefined) return payByCard(ctx, route, paymentMethodId, topUpAmount, requestId);
  if (!verdict.allowed) return rateLimited(verdict.retryAfterSeconds);
  // The limiter learns how the attempt ended (the default counts only the payer's failures).
  return verdict.settle(payByCard(ctx, route, paymentMethodId, topUpAmount, requestId));
}

/** Builds a gate; throws a Credit402ConfigError when the options are invalid. */
export function createGate(options: GateOptions): Gate {
  const { serviceName, onError, lock, refundOnHandlerError, storeTimeoutMs, requestIdTtlMs, newPaymentRateLimit, cors, hooks } = validateGateOptions(options);
  const emit = createEmitter(hooks, onError);
  const limiter = newPaymentRateLimit ? createRateLimiter(newPaymentRateLimit) : undefined;
  const publishableKey = options.stripePublishableKey;
  const challengesOf = (route: ResolvedRoute) => buildChallenges(route, publishableKey);
  const gated = (route: ResolvedRoute, exact: boolean): GatedRoute => Object.freeze({ ...route, exact, challenges: challengesOf(route) });
  const routes = new Map<string, GatedRoute>();
  for (const [key, route] of resolveRoutes(options.routes)) routes.set(key, gated(route, route.segments === undefined));
  const table = createRouteTable(routes.values());
  const ctx: GateContext = {
    store: withStoreTiming(withStoreDeadlines(options.store, storeTimeoutMs), emit),
    processor: options.processor,
    serverSecret: options.serverSecret,
    serviceName,
    report: onError,
    lock,
    storeTimeoutMs,
    requestIdTtlMs,
    repeatLeaseMs: repeatLeaseMs(storeTimeoutMs),
    isoNow: createIsoClock(),
    refundOnHandlerError,
    emit,
  };

  /** The decision for a request to a gated route: challenge, payment error, 503 or a paid pass. */
  async function decideGated(route: GatedRoute, request: GateRequest): Promise<GateDecision> {
    const { paymentHeader } = request;
    if (paymentHeader === undefined) return emitted(emit, route, route.challenges.plain);
    try {
      // The paid path awaits the deduction here, in this one async function.
      const parsed = parsePaymentHeader(typeof paymentHeader === 'string' ? paymentHeader : paymentHeader.join(', '));
      if (!parsed.ok) return emitted(emit, route, paymentError('invalid_payment', parsed.message));
      const { clientId, requestId } = parsed.payload;
      if (clientId !== undefined && isClientIdShape(clientId)) {
        const served = await spendBalance(ctx, route, { clientId, requestId });
        if (served !== null) return emitted(emit, route, served);
      }
      return emitted(emit, route, await unpaid(ctx, route, parsed.payload, request, limiter));
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        emit({ type: 'store_unavailable', route: route.key, currency: route.currency, operation: error.operation });
        return serviceUnavailable(error.message);
      }
      if (error instanceof PaymentError) return emitted(emit, route, paymentError(error.code, error.message));
      throw error;
    }
  }

  return {
    routes,
    match: table.match,
    defineRoute: (key, config) => gated(resolveRoute(key, config, false), false),
    handle(request: GateRequest): Promise<GateDecision> {
      // Not async: a paid request's promise is decideGated's own, not one more wrapped around it.
      try {
        // A target that parsers read differently is refused before anything is read or charged (CR-4.10).
        const target = readRequestTarget(request.url);
        if (!target.ok) return Promise.resolve(ambiguousTarget(target.reason));
        const route = request.route ?? table.match(request.method, target.path);
        if (route === undefined) {
          const methods = cors && request.method === 'OPTIONS' ? table.methodsOn(target.path) : [];
          return Promise.resolve(cors && methods.length > 0 ? preflight(cors, request.origin, methods) : PASS);
        }
        const decided = decideGated(forRequest(route, target.path, challengesOf), request);
        return cors ? decided.then((decision) => withCors(decision, cors, request.origin)) : decided;
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };

}

/** Emits the event of an answer given without the handler (a challenge or a payment error); returns the decision. */
function emitted(emit: Emit, route: GatedRoute, decision: GateDecision): GateDecision {
  if (emit === NO_EVENTS || decision.action !== 'respond') return decision;
  const base = { route: route.key, currency: route.currency };
  if (decision.code === 'challenge' || decision.code === 'insufficient_credits') {
    emit({ type: 'challenge', ...base, reason: decision.code === 'challenge' ? 'plain' : 'insufficient' });
    return decision;
  }
  emit({ type: 'payment_error', ...base, code: decision.code, status: decision.status });
  return decision;
}
