// The credit402 fetch wrapper: sends the stored clientId, pays a challenge once through the callback, retries an outage with the same request id.
import { decodeBase64Json, encodeBase64Json } from '../protocol/base64-json.ts';
import { HEADERS, PROTOCOL_VERSION } from '../protocol/constants.ts';
import { validatePaymentPayload } from '../protocol/payment-payload.ts';
import type { PaymentPayload, PaymentResponse } from '../protocol/types.ts';
import { Credit402PaymentError, Credit402ProtocolError } from './errors.ts';
import type { Credit402Fetch, Credit402FetchOptions, PaymentDecision } from './options.ts';
import { SpendingGuard } from './spending.ts';
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

/**
 * Wraps `fetch` so that requests to credit402-gated routes are paid: a stored clientId is sent first; on a
 * challenge or `insufficient_credits` the callback is asked once and the request is retried once with its
 * payment method. It never loops: a second challenge is returned as it is. Every payload carries one `requestId` per
 * request; an answer 503 `service_unavailable` is retried (`unavailableRetries`, default once) with the same
 * payload, so the gate never deducts a retried request twice (CR-6.9). Payment errors (402 PaymentResponse
 * bodies, and 503 `service_unavailable`) throw Credit402PaymentError; the spending limits throw
 * Credit402SpendingLimitError; unreadable protocol headers throw Credit402ProtocolError. A request that already
 * carries a `payment` header is sent as it is. Concurrent requests that meet a challenge each ask the callback.
 * Redirects follow the request's `redirect` mode and, as fetch does with custom headers, keep the `payment`
 * header: use `redirect: 'error'` towards servers that might redirect a paid route to another origin.
 */
export function createCredit402Fetch(options: Credit402FetchOptions): Credit402Fetch {
  const underlying = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const storage = options.storage ?? new MemoryClientIdStorage();
  const guard = new SpendingGuard(options.maxTopUpPerPayment, options.maxTopUpPerSession);
  const retries = options.unavailableRetries ?? 1;
  if (!Number.isSafeInteger(retries) || retries < 0) throw new RangeError('unavailableRetries must be a non-negative integer');
  let lastPayment: PaymentResponse | undefined;

  async function send(base: Request, body: ArrayBuffer | undefined, payload?: PaymentPayload): Promise<Outcome & { response: Response }> {
    const headers = new Headers(base.headers);
    if (payload) headers.set(HEADERS.PAYMENT, encodeBase64Json(payload));
    const response = await underlying(new Request(base, { headers, body }));
    const outcome = await classify(response);
    if (outcome.kind === 'paid') {
      lastPayment = outcome.payment;
      await storage.set(new URL(base.url).origin, outcome.payment.clientId);
    }
    return { ...outcome, response };
  }

  /** {@link send}, again with the same payload after a 503 `service_unavailable`, up to `unavailableRetries` times. */
  async function sendRetrying(base: Request, body: ArrayBuffer | undefined, payload: PaymentPayload | undefined): Promise<Outcome & { response: Response }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send(base, body, payload);
      } catch (error) {
        if (!(error instanceof Credit402PaymentError) || !error.retryable || attempt >= retries) throw error;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs(error.response)));
      }
    }
  }

  async function credit402Fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const base = new Request(input, init);
    const body = base.body === null ? undefined : await base.arrayBuffer();
    if (base.headers.has(HEADERS.PAYMENT)) return (await send(base, body)).response;
    const clientId = await storage.get(new URL(base.url).origin);
    const requestId = globalThis.crypto.randomUUID();
    const first = await sendRetrying(base, body, clientId === undefined ? undefined : { stripe402Version: PROTOCOL_VERSION, clientId, requestId });
    if (first.kind !== 'challenge') return first.response;

    const { challenge, accepts } = first.read;
    const reason = challenge.error === 'insufficient_credits' ? 'insufficient_credits' : 'challenge';
    const decision = await options.onPaymentRequired({ challenge, accepts, url: base.url, reason });
    if (decision === null || decision === undefined) return first.response;
    const payload = paymentPayload(decision, clientId, requestId);
    const reservation = guard.reserve(payload.topUpAmount ?? accepts.minTopUp);
    try {
      const second = await sendRetrying(base, body, payload);
      if (second.kind === 'paid' && second.payment.chargeId === undefined) reservation.release();
      return second.response;
    } catch (error) {
      if (error instanceof Credit402PaymentError && error.status === 402) reservation.release();
      throw error;
    }
  }

  return Object.assign(credit402Fetch, {
    getLastPayment: () => lastPayment,
    getSessionSpending: () => guard.spent,
  });
}
