// The credit402 fetch wrapper: sends the kept clientId, pays a challenge once through the callback, shares an origin's payment, retries an outage once, follows redirects.
import { decodeBase64Json, encodeBase64Json } from '../protocol/base64-json.ts';
import { HEADERS, PROTOCOL_VERSION } from '../protocol/constants.ts';
import { validatePaymentPayload } from '../protocol/payment-payload.ts';
import type { PaymentPayload, PaymentResponse } from '../protocol/types.ts';
import { Credit402PaymentError, Credit402ProtocolError, Credit402TopUpError } from './errors.ts';
import { OriginPayments } from './origin-payments.ts';
import type { Credit402Fetch, Credit402FetchOptions, PaymentDecision } from './options.ts';
import { MAX_REDIRECTS, originOf, redirectedHop, redirectTarget, type Hop } from './redirects.ts';
import { provesNoCharge, SpendingGuard } from './spending.ts';
import { MemoryClientIdStorage } from './storage.ts';
import { readChallenge, readPaymentFailure, readPaymentSuccess, type ReadChallenge, type WireResult } from './wire.ts';

/** What one answer means to the client. */
type Outcome =
  | { kind: 'paid'; payment: PaymentResponse }
  | { kind: 'challenge'; read: ReadChallenge }
  | { kind: 'other' };

/** Decodes and reads a protocol header: undefined when absent, Credit402ProtocolError when unreadable. */
function readHeader<T>(response: Response, name: string, read: (value: unknown) => WireResult<T>): T | undefined {
  const raw = response.headers.get(name);
  if (raw === null) return undefined;
  const decoded = decodeBase64Json(raw);
  const result = decoded.ok ? read(decoded.value) : { ok: false as const, problems: ['not base64 JSON'] };
  if (!result.ok) throw new Credit402ProtocolError(`${name} header`, result.problems, response);
  return result.value;
}

/** Classifies an answer; throws Credit402PaymentError for payment errors, Credit402ProtocolError for broken headers. */
async function classify(response: Response): Promise<Outcome> {
  const payment = readHeader(response, HEADERS.PAYMENT_RESPONSE, readPaymentSuccess);
  if (payment) return { kind: 'paid', payment };
  if (response.status === 402) {
    const read = readHeader(response, HEADERS.PAYMENT_REQUIRED, readChallenge);
    if (read) return { kind: 'challenge', read };
  }
  if (response.status === 402 || response.status === 503) {
    let body: unknown;
    try {
      body = JSON.parse(await response.clone().text());
    } catch {
      return { kind: 'other' };
    }
    const failure = readPaymentFailure(body);
    if (failure) throw new Credit402PaymentError(failure.errorCode, failure.error, response);
  }
  return { kind: 'other' };
}

function paymentPayload(decision: PaymentDecision, clientId: string | undefined, requestId: string): PaymentPayload {
  const candidate = {
    stripe402Version: PROTOCOL_VERSION,
    ...(clientId === undefined ? {} : { clientId }),
    paymentMethodId: decision.paymentMethodId,
    ...(decision.topUpAmount === undefined ? {} : { topUpAmount: decision.topUpAmount }),
    requestId,
  };
  const checked = validatePaymentPayload(candidate);
  if (!checked.ok) throw new TypeError(`credit402: onPaymentRequired returned an unusable payment: ${checked.message}`);
  return checked.payload;
}

/** The wait a 503 asks for: its `Retry-After` seconds (default 1), at most 5 s. */
function retryDelayMs(response: Response): number {
  const seconds = Number(response.headers.get('retry-after') ?? '1');
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 5) * 1000 : 1000;
}

/** One call's state: the request it sends now (after its same-origin redirects), its request id, the clientId it presents, its 503 retries left (CR-16.12). */
interface Call {
  hop: Hop;
  /** The origin the call was made to; it never changes, and nothing of it is sent to another (CR-16.9). */
  origin: string;
  requestId: string;
  clientId: string | undefined;
  retriesLeft: number;
  redirects: number;
  /** Requests sent so far, so that a refusal can be told to answer the paying request itself. */
  sent: number;
  /** False when the caller sent its own `payment` header: it is sent as it is, and the client adds none. */
  ownPayment: boolean;
}

/** An answer of the call's origin, or `foreign` when it came from another origin (returned to the caller unread). */
type Answer = Outcome & { response: Response; foreign?: true };

/**
 * Wraps `fetch` so that requests to credit402-gated routes are paid, as spec §16 asks of a client. The clientId kept
 * for the request's origin (never another's, CR-16.9) is sent with the first request (CR-16.14). On a challenge, or
 * `insufficient_credits`, the callback is asked once per call and the request is sent again once with its payment
 * method (CR-16.7); a second challenge is returned as it is, never paid again. Calls to one origin share its payment:
 * a call challenged while a payment to that origin is under way waits for it and presents the clientId it produced,
 * asking its own callback only if that balance does not cover it (CR-16.8). A `topUpAmount` below the challenge's
 * `minTopUp` throws Credit402TopUpError and the spending limits throw Credit402SpendingLimitError, before anything is
 * sent (CR-16.3, CR-16.11); a top-up counts against them from the moment it is sent, and is given back only when its
 * answer proves nothing was charged (`card_declined`, `top_up_below_minimum`, `invalid_payment`). Every payload
 * carries a `requestId`; a payload answered 503 `service_unavailable` is sent again at most once per call
 * (`unavailableRetries`), unchanged, so the gate never deducts it twice (CR-16.12, CR-6.9). Payment errors (402
 * PaymentResponse bodies, and 503 `service_unavailable`) throw Credit402PaymentError and end the call (CR-16.5);
 * unreadable protocol headers throw Credit402ProtocolError, with nothing paid or kept (CR-16.13). A request that
 * already carries a `payment` header is sent as it is.
 *
 * Redirects (CR-16.9): with the default `redirect: 'follow'` the client follows them itself, as fetch would (at most
 * 20; a 303, and a 301 or 302 of a POST, become a GET). A redirect within the call's origin is followed with the
 * clientId kept for it and a new `requestId`, never with a payment method; a challenge met there is paid by sending
 * the redirected request again, and the callback is told its URL. A redirect to another origin is followed without
 * the `payment` header, `authorization`, `proxy-authorization` or `cookie`, and what that origin answers (a challenge
 * too) is returned to the caller as it is: never paid, nothing kept. `redirect: 'manual'` and `'error'` are fetch's.
 */
export function createCredit402Fetch(options: Credit402FetchOptions): Credit402Fetch {
  const underlying = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const storage = options.storage ?? new MemoryClientIdStorage();
  const guard = new SpendingGuard(options.maxTopUpPerPayment, options.maxTopUpPerSession);
  const retries = options.unavailableRetries ?? 1;
  if (retries !== 0 && retries !== 1) throw new RangeError('unavailableRetries must be 0 or 1 (a call is retried at most once, CR-16.12)');
  const payments = new OriginPayments();
  let lastPayment: PaymentResponse | undefined;

  /** Sends the call's request once with `payload`, redirects not followed; keeps the clientId of a successful `payment-response`. */
  async function send(call: Call, payload: PaymentPayload | undefined): Promise<Answer> {
    const { request, body } = call.hop;
    const headers = new Headers(request.headers);
    if (payload) headers.set(HEADERS.PAYMENT, encodeBase64Json(payload));
    // Followed by exchange(), which decides what each origin is sent.
    const redirect = request.redirect === 'follow' ? 'manual' : request.redirect;
    call.sent++;
    const response = await underlying(new Request(request, { headers, body, redirect }));
    // An underlying fetch that followed a redirect anyway answered for another origin: its answer is not read.
    if (response.url !== '' && originOf(response.url) !== call.origin) return { kind: 'other', response, foreign: true };
    const outcome = await classify(response);
    if (outcome.kind === 'paid') {
      lastPayment = outcome.payment;
      await storage.set(call.origin, outcome.payment.clientId);
    }
    return { ...outcome, response };
  }

  /** {@link send} with the call's payload; sent again, unchanged, after a 503 `service_unavailable` while the call has a retry left. */
  async function sendForCall(call: Call, payload: PaymentPayload | undefined): Promise<Answer> {
    for (;;) {
      try {
        return await send(call, payload);
      } catch (error) {
        // Only a payload with a request id is sent again: the server then deducts it at most once (CR-6.9).
        if (!(error instanceof Credit402PaymentError) || !error.retryable || payload?.requestId === undefined || call.retriesLeft <= 0) throw error;
        call.retriesLeft--;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs(error.response)));
      }
    }
  }

  const presenting = (call: Call): PaymentPayload | undefined =>
    call.clientId === undefined ? undefined : { stripe402Version: PROTOCOL_VERSION, clientId: call.clientId, requestId: call.requestId };

  /**
   * {@link sendForCall}, then the redirects of the answer while the request's mode is `follow` (CR-16.9): within the
   * call's origin with the clientId only (the one a redirect's `payment-response` gave, else the call's) and a new
   * request id; to another origin with no payment material, its answer foreign. `kept` is the last clientId kept.
   */
  async function exchange(call: Call, first: PaymentPayload | undefined): Promise<Answer & { kept?: string }> {
    let payload = first;
    let kept: string | undefined;
    for (;;) {
      const answer = await sendForCall(call, payload);
      if (answer.kind === 'paid') kept = answer.payment.clientId;
      const target = call.hop.request.redirect === 'follow' && !answer.foreign ? redirectTarget(answer.response, call.hop.request) : undefined;
      if (target === undefined) return { ...answer, kept };
      await answer.response.body?.cancel();
      if (++call.redirects > MAX_REDIRECTS) throw new TypeError(`credit402: more than ${MAX_REDIRECTS} redirects from ${call.hop.request.url}`);
      const next = redirectedHop(call.hop, answer.response.status, target);
      if (target.origin !== call.origin) return { kind: 'other', response: await underlying(next.request), foreign: true, kept };
      call.hop = next;
      call.requestId = globalThis.crypto.randomUUID();
      if (kept !== undefined) call.clientId = kept;
      payload = call.ownPayment ? presenting(call) : undefined;
    }
  }

  /** Asks the callback about `challenge` and sends the approved payment once; `produced` gets the clientId it gave. */
  async function pay(call: Call, read: ReadChallenge, first: Response, produced: { clientId?: string }): Promise<Response> {
    const { challenge, accepts } = read;
    const reason = challenge.error === 'insufficient_credits' ? 'insufficient_credits' : 'challenge';
    const decision = await options.onPaymentRequired({ challenge, accepts, url: call.hop.request.url, reason });
    if (decision === null || decision === undefined) return first;
    const payload = paymentPayload(decision, call.clientId, call.requestId);
    if (payload.topUpAmount !== undefined && payload.topUpAmount < accepts.minTopUp) throw new Credit402TopUpError(payload.topUpAmount, accepts.minTopUp);
    // Counted now, before anything is awaited, so that concurrent calls see it (CR-16.11).
    const reservation = guard.reserve(payload.topUpAmount ?? accepts.minTopUp);
    const sentBefore = call.sent;
    try {
      const answer = await exchange(call, payload);
      produced.clientId = answer.kept;
      return answer.response;
    } catch (error) {
      // Only a refusal answering the paying request itself (no retry, no redirect since) proves nothing was charged.
      if (call.sent === sentBefore + 1 && provesNoCharge(error)) reservation.release();
      throw error;
    }
  }

  async function credit402Fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const origin = originOf(request.url);
    const ownPayment = !request.headers.has(HEADERS.PAYMENT);
    const call: Call = { hop: { request, body }, origin, requestId: globalThis.crypto.randomUUID(), clientId: undefined, retriesLeft: retries, redirects: 0, sent: 0, ownPayment };
    if (!ownPayment) return (await exchange(call, undefined)).response;
    call.clientId = await storage.get(origin);
    let mark = payments.mark(origin);
    let answer = await exchange(call, presenting(call));
    // Challenged: wait for a payment to this origin under way, and present the clientId of any that ended since (CR-16.8).
    while (answer.kind === 'challenge') {
      const underWay = payments.underWay(origin);
      if (underWay !== undefined) {
        await underWay;
        continue;
      }
      const newer = payments.newerClientId(origin, mark);
      if (newer === undefined) break;
      call.clientId = newer;
      mark = payments.mark(origin);
      answer = await exchange(call, presenting(call));
    }
    if (answer.kind !== 'challenge') return answer.response;
    const end = payments.start(origin);
    const produced: { clientId?: string } = {};
    try {
      return await pay(call, answer.read, answer.response, produced);
    } finally {
      end(produced.clientId);
    }
  }

  return Object.assign(credit402Fetch, {
    getLastPayment: () => lastPayment,
    getSessionSpending: () => guard.spent,
  });
}
