// Fetch handlers `(request, ...rest) => Response` gated by credit402: a whole app by the gate's route table, or one route priced where it is declared (Next.js App Router route handlers).
import { ambiguousTarget, readRequestTarget, routerTarget, type Gate, type GatedRoute, type ServeOutcome } from '../../gate/index.ts';
import type { PaymentResponse, RouteConfig } from '../../protocol/types.ts';
import { refusedBody, type BodyCheck } from './body-check.ts';
import { decisionResponse, gateRequestOf, paymentOf, serveFetch, settleNow } from './fetch-gate.ts';
import { peerAddressOf, requestTargetOf } from './request-facts.ts';
import { keyMethod, routeKeyPath, routePricing } from './route-key.ts';

/** A Web-standard request handler: `app.fetch`, a Worker's `fetch`, a Next.js route handler, Bun.serve's `fetch`. */
export type FetchHandler<Rest extends unknown[] = unknown[]> = (request: Request, ...rest: Rest) => Response | Promise<Response>;

/** How a gated fetch handler reads what the `Request` does not say. */
export interface Credit402FetchOptions<Rest extends unknown[] = unknown[]> {
  /**
   * The request target as received (`/api/%77eather?x=1`). Default: `env.incoming.url` when the handler's second
   * argument is `@hono/node-server`'s `{ incoming }`, else the path and query of `request.url`, which the runtime's URL
   * parser has already normalised (dot segments, `\` and fragments gone): ambiguous targets (CR-4.10) then cannot be
   * refused, though the gate and the router still read the same path (CR-4.9).
   */
  target?: (request: Request, ...rest: Rest) => string | undefined;
  /**
   * The client's address, which the gate's `newPaymentRateLimit` counts by. Default: the socket's peer on
   * `@hono/node-server`, else none (every client shares one bucket). Behind a proxy, read the address it names.
   */
  clientAddress?: (request: Request, ...rest: Rest) => string | undefined;
  /**
   * Reads a gated request's body as the handler will, before anything is charged (CR-4.7): throwing refuses the
   * request (a thrown `Response` is the answer, anything else a 400). Give it a clone:
   * `body: (request) => request.clone().json()`. Free requests are not read.
   */
  body?: BodyCheck<Request>;
}

/** Options of {@link withCredit402}: {@link Credit402FetchOptions} and the route's path. */
export interface Credit402RouteOptions<Rest extends unknown[] = unknown[]> extends Credit402FetchOptions<Rest> {
  /**
   * The route's path pattern, for its key in records, events and metrics: the route-key syntax (`/api/users/:id`) or
   * Next.js's folders (`/api/users/[id]`, `/api/files/[...path]`). Default: the request path, so every path is its own
   * key (fine for a route without parameters).
   */
  path?: string;
}

/** The target and client address of a request, as the options read them. */
function factsOf<Rest extends unknown[]>(options: Credit402FetchOptions<Rest>, request: Request, rest: Rest): { target: string; clientAddress: string | undefined } {
  const [env] = rest;
  return {
    target: options.target?.(request, ...rest) ?? requestTargetOf(request, env),
    clientAddress: options.clientAddress ? options.clientAddress(request, ...rest) : peerAddressOf(env),
  };
}

/** `request` with its URL's path and query those the gate read (`/api/%77eather` → `/api/weather`), unchanged when they are already. */
function routedAsRead(request: Request, target: string): Request {
  const routed = routerTarget(target);
  if (routed === undefined) return request;
  const url = new URL(request.url);
  if (`${url.pathname}${url.search}` === routed) return request;
  return new Request(new URL(routed, url), request);
}

/**
 * Gates a whole fetch handler by the gate's route table (`routes`): what no route prices (and is no `OPTIONS`
 * preflight of one) goes to `handler` untouched, nothing read. A gated request is answered by the gate (a 402
 * challenge, a payment error, a 429, a 503; a 400 to an ambiguous target, CR-4.10) or served: `handler` gets it with
 * its URL the path the gate matched (`/api/%77eather` is routed as `/api/weather`, CR-4.9), its PaymentResponse from
 * {@link credit402Payment}; its answer gets `payment-response` and is settled with its status (a handler that throws
 * is settled `{ threw: true }`, its error rethrown), which decides any refund (`refundOnHandlerError`).
 *
 * ```ts
 * export default { fetch: credit402Handler(gate, app.fetch) }; // a Worker, Bun, Deno; or serve({ fetch }) on Node
 * ```
 */
export function credit402Handler<Rest extends unknown[]>(gate: Gate, handler: FetchHandler<Rest>, options: Credit402FetchOptions<Rest> = {}): FetchHandler<Rest> {
  return async (request, ...rest) => {
    const facts = factsOf(options, request, rest);
    const reading = readRequestTarget(facts.target);
    if (!reading.ok) return decisionResponse(ambiguousTarget(reading.reason), request.method);
    const route = gate.match(request.method, reading.path);
    if (route === undefined && request.method !== 'OPTIONS') return handler(request, ...rest);
    // A gated request is handed on routed as the gate read it; the gate still reads the target as received.
    const routed = route === undefined ? request : routedAsRead(request, facts.target);
    return decide(gate, routed, { ...facts, route }, options.body, (paid) => handler(paid, ...rest));
  };
}

/**
 * Prices one fetch handler: a Next.js App Router route handler (`export const GET = withCredit402(gate, { amount:
 * 500 }, handler)`), or any handler that serves one route. `config` is the route's configuration, validated here (an
 * invalid one throws a Credit402ConfigError). Every request reaching it is gated: answered by the gate, or served
 * with `payment-response` and settled as {@link credit402Handler} does; an ambiguous target is answered 400 where the
 * runtime still shows it. Its key is the request's method (HEAD as GET) and `options.path`, else the request path.
 *
 * ```ts
 * // app/api/users/[id]/route.ts
 * export const GET = withCredit402(gate, { amount: 500 }, async (request, { params }) => {
 *   return Response.json({ id: (await params).id, creditsRemaining: credit402Payment(request)?.creditsRemaining });
 * }, { path: '/api/users/[id]' });
 * ```
 */
export function withCredit402<Rest extends unknown[]>(gate: Gate, config: RouteConfig, handler: FetchHandler<Rest>, options: Credit402RouteOptions<Rest> = {}): FetchHandler<Rest> {
  const priced = routePricing(gate, config, 'withCredit402()');
  const keyPath = options.path === undefined ? undefined : routeKeyPath(options.path);
  return async (request, ...rest) => {
    const facts = factsOf(options, request, rest);
    const reading = readRequestTarget(facts.target);
    if (!reading.ok) return decisionResponse(ambiguousTarget(reading.reason), request.method);
    const route = priced(`${keyMethod(request.method)} ${keyPath ?? reading.path}`);
    return decide(gate, request, { ...facts, route }, options.body, (paid) => handler(paid, ...rest));
  };
}

/** Reads the body when asked (a gated route only), asks the gate, and answers, passes or serves. */
async function decide(
  gate: Gate,
  request: Request,
  facts: { target: string; clientAddress: string | undefined; route: GatedRoute | undefined },
  body: BodyCheck<Request> | undefined,
  run: (request: Request) => Response | Promise<Response>,
): Promise<Response> {
  if (facts.route !== undefined) {
    const refused = await refusedBody(body, request);
    if (refused !== undefined) return refused;
  }
  const decision = await gate.handle(gateRequestOf(request, facts));
  if (decision.action === 'respond') return decisionResponse(decision, request.method);
  if (decision.action === 'pass') return run(request);
  return serveFetch(decision, request, run);
}

/** The PaymentResponse of a paid request inside its handler (the `Request` the handler was given); undefined when it was not paid. */
export function credit402Payment(request: Request): PaymentResponse | undefined {
  return paymentOf(request);
}

/**
 * Settles a paid request now with `outcome` instead of with its answer's status: for a handler that forwards the
 * request and gets no answer (`{ status: 502, upstreamFailed: true }` gives the whole deduction back, spec CR-15.3),
 * or one that knows its outcome early. The request is settled once: later settlements, and the adapter's own, do
 * nothing. Resolves at once for a request that was not paid; never rejects.
 */
export function credit402Settle(request: Request, outcome: ServeOutcome): Promise<void> {
  return settleNow(request, outcome);
}
