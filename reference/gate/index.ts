// Public entry of the gate engine (`credit402/gate`): the engine, its decisions, and the adapter kit, the only way code outside gate/ reaches the engine.
import type { readRequestTarget as readTarget } from './request-target.ts';

export { createGate, type Gate } from './gate.ts';
export type { GateOptions } from './options.ts';
export { createErrorLog, type ErrorLogOptions } from './error-log.ts';
export type { GateDecision, GateRequest, PassDecision, RespondDecision, ServeDecision, ServeOutcome } from './decision.ts';
export type { GatedRoute } from './context.ts';
export { Credit402ConfigError, type ConfigErrorCode } from '../config/config-error.ts';
export type {
  GateEvent, GateEventType, GateHooks, ChallengeEvent, ChargeEvent, CreditEvent, DeductionEvent, RefundEvent, PaymentErrorEvent, StoreUnavailableEvent, StoreCallEvent,
} from './events.ts';

// ---- The adapter kit: what an adapter for a framework credit402 does not ship needs besides `gate.handle`. ----

/** The reporter of the gate's `onError` option: called with every store or processor failure and the stage it happened at. */
export type { ErrorReporter } from './failures.ts';

/**
 * A route of the table with its defaults applied (`validateRoutes`, `gate.routes`): key, method, path or pattern
 * segments, amount, currency and top-up bounds. A {@link GatedRoute} is one with its challenges.
 */
export type { ResolvedRoute } from './routes.ts';

/**
 * Reading the request target (CR-4.2, CR-4.10). `readRequestTarget(target)` gives the request path and query the gate
 * matches (`{ ok: true, path, query }`), or why the target is ambiguous (`{ ok: false, reason }`): an adapter that
 * refuses a request before `gate.handle` sees it (when it arrives, before the body is read) answers
 * `ambiguousTarget(reason)`, the gate's own 400 (error code {@link AMBIGUOUS_TARGET}). `routerTarget(target)` is the
 * origin-form target to hand the framework's router for a paid request, so that the router reaches the handler of the
 * route that was paid for (`/api/%77eather` → `/api/weather`); undefined for an ambiguous target.
 */
export { AMBIGUOUS_TARGET, ambiguousTarget, readRequestTarget, routerTarget } from './request-target.ts';

/** What {@link readRequestTarget} returns: `{ ok: true, path, query }`, or `{ ok: false, reason }` for an ambiguous target. */
export type RequestTargetReading = ReturnType<typeof readTarget>;

/**
 * Router agreement (CR-4.9), for an adapter whose hook runs after the framework's router: `createRouterAgreement(gate)`
 * returns `(method, target, routerPath)` (`routerPath` the matched route's path in the router's syntax, `null` when it
 * matched none), which answers `'free'` (call the handler, ask nothing) or `{ url, route? }` to hand `gate.handle`, so
 * that the gate decides on the route the router chose. `routerDecidedTarget` is the same without its memory.
 */
export { createRouterAgreement, routerDecidedTarget, type RouterDecision } from './route-agreement.ts';

/** Route-config validation without a gate: `validateRoutes(routes)` refuses a table as `createGate` would. */
export { validateRouteConfig, validateRoutes } from './validate-routes.ts';

/**
 * Matching as the gate matches (CR-4.2, CR-4.8, CR-4.12, CR-4.13), for an adapter or a small router that routes requests
 * itself: `createRouteTable(routes)` finds the most specific route of a method and request path (HEAD following GET)
 * and the methods gated on a path; routes with `segments` (from {@link parseRoutePattern}) are patterns.
 */
export { createRouteTable, type RouteTable, type TableRoute } from './route-table.ts';

/**
 * Near-misses of gated routes (CR-15.5), for a proxy whose upstream's router may match more loosely than the gate:
 * `createNearMisses(routes, loosenesses)` (undefined when there is nothing to look for) gives `routeNear(method, path)`,
 * the gated route such a router could read a free request's path as (`/API/weather/` for `GET /api/weather`), and
 * `nearMissRefused(route)` the 404 the proxy answers instead of forwarding it (error code {@link NEAR_MISS}).
 * {@link ROUTER_LOOSENESSES} lists the loosenesses.
 */
export { createNearMisses, NEAR_MISS, nearMissRefused, ROUTER_LOOSENESSES, type NearMisses, type RouterLooseness } from './near-miss.ts';

/**
 * Route-key patterns (`/api/users/:id`, `/files/*`; CR-4.11–CR-4.14). `parseRoutePattern(key, path)` gives a pattern's
 * segments (undefined for an exact path; throws `ERR_ROUTE_PATTERN` for an invalid one): an adapter converting its
 * framework's route paths to route keys checks the result with it. `matchesRoutePattern(segments, path)` tells whether
 * a request path matches, `routePatternParams(segments, path)` gives its parameters (`*` for the wildcard's rest), and
 * `compareRouteSpecificity(a, b)` orders patterns most specific first.
 */
export {
  compareSpecificity as compareRouteSpecificity,
  matchesPattern as matchesRoutePattern,
  parsePattern as parseRoutePattern,
  patternParams as routePatternParams,
  type RouteSegment,
} from './route-pattern.ts';

/**
 * CORS of gated routes (the gate's `cors` option, {@link CorsOptions}). `gate.handle` applies the policy itself when the
 * adapter passes `origin`, including preflights of the table's paths. An adapter that gates routes the gate does not
 * match (per-route gating) answers their preflights with `corsPreflight(policy, origin, methods)` and adds the policy's
 * headers to a decision with `withCors(decision, policy, origin)`, `policy` coming from `validateCors(options)`
 * (undefined when off; throws `ERR_CORS`).
 */
export { preflight as corsPreflight, validateCors, withCors, type CorsOptions, type CorsPolicy } from './cors.ts';

/** The gate's `newPaymentRateLimit` option, and its default when the option is absent (60 failed new payments per address per 10 minutes). */
export { DEFAULT_NEW_PAYMENT_RATE_LIMIT, type NewPaymentRateLimit, type RateCount } from './rate-limit.ts';
