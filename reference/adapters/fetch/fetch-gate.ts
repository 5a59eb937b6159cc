// The gate applied to a Web-standard `Request`: the request as the gate reads it, a decision's answer as a `Response`, and a paid answer's headers and settlement.
import type { GatedRoute, GateRequest, RespondDecision, ServeDecision, ServeOutcome } from '../../gate/index.ts';
import type { PaymentResponse } from '../../protocol/types.ts';

/** What the adapter knows of a request besides the `Request` itself. */
export interface FetchRequestFacts {
  /** The request target as received (path and query, or an absolute form). */
  target: string;
  /** The client's address, which the gate's `newPaymentRateLimit` counts by; undefined: one shared bucket. */
  clientAddress?: string | undefined;
  /** The route the application's router matched (per-route gating); undefined: the gate matches its table. */
  route?: GatedRoute | undefined;
}

/** The `GateRequest` of a `Request`: method, target as received, `payment` and `origin` headers, client address, route. */
export function gateRequestOf(request: Request, facts: FetchRequestFacts): GateRequest {
  return {
    method: request.method,
    url: facts.target,
    paymentHeader: request.headers.get('payment') ?? undefined,
    clientAddress: facts.clientAddress,
    origin: request.headers.get('origin') ?? undefined,
    route: facts.route,
  };
}

/** The `Response` of an answer the gate decided on (a challenge, a payment error, a 429, a 503, a 400): JSON, no body to HEAD. */
export function decisionResponse(decision: Pick<RespondDecision, 'status' | 'headers' | 'body'>, method: string): Response {
  return new Response(method === 'HEAD' ? null : JSON.stringify(decision.body), { status: decision.status, headers: decision.headers });
}

/**
 * `response` with `headers` added (a paid answer's `payment-response`). A response whose headers cannot change (one
 * from `fetch()`, `Response.redirect()`) is copied into one whose can, body untouched.
 */
export function withHeaders(response: Response, headers: Readonly<Record<string, string>>): Response {
  let answer = response;
  for (const [name, value] of Object.entries(headers)) {
    try {
      answer.headers.set(name, value);
    } catch {
      answer = new Response(answer.body, answer);
      answer.headers.set(name, value);
    }
  }
  return answer;
}

/** A paid request under way: its PaymentResponse and its settlement, which only the first call makes. */
interface PaidRequest {
  payment: PaymentResponse;
  settle(outcome: ServeOutcome): Promise<void>;
}

/** The paid requests still being answered, by their `Request`: what {@link paymentOf} and {@link settleNow} read. */
const paid = new WeakMap<Request, PaidRequest>();

/** What settling a request that owes nothing resolves: one resolved promise, shared. */
const NOTHING_TO_SETTLE: Promise<void> = Promise.resolve();

/** Registers a served request (the `Request` its handler gets): its payment and a settlement made at most once. */
export function registerPaid(request: Request, decision: ServeDecision): void {
  let settled = false;
  paid.set(request, {
    payment: decision.payment,
    settle(outcome) {
      if (settled) return NOTHING_TO_SETTLE;
      settled = true;
      return decision.settle(outcome);
    },
  });
}

/** The PaymentResponse of a paid request (the `Request` the handler was given), undefined for any other. */
export function paymentOf(request: Request): PaymentResponse | undefined {
  return paid.get(request)?.payment;
}

/**
 * Settles a paid request now with `outcome` instead of with its answer's status: see `credit402Settle`. Resolves at
 * once for a request that was not paid or is settled already; never rejects.
 */
export function settleNow(request: Request, outcome: ServeOutcome): Promise<void> {
  return paid.get(request)?.settle(outcome) ?? NOTHING_TO_SETTLE;
}

/**
 * Runs the handler of a paid request and applies the decision to its answer: the handler gets `request` (registered as
 * paid, for `credit402Payment` and `credit402Settle`); its `Response` gets the decision's headers and is settled with
 * its status before it is returned, so that a refund owed (`refundOnHandlerError`) is made before the client sees the
 * answer, even where the runtime stops work once the answer is sent (serverless). A handler that throws is settled
 * `{ threw: true }` and its error rethrown, for the runtime or framework to answer.
 */
export async function serveFetch(decision: ServeDecision, request: Request, run: (request: Request) => Response | Promise<Response>): Promise<Response> {
  registerPaid(request, decision);
  let response: Response;
  try {
    response = await run(request);
  } catch (error) {
    await settleNow(request, { threw: true });
    throw error;
  }
  const answer = withHeaders(response, decision.headers);
  await settleNow(request, { status: answer.status });
  return answer;
}
