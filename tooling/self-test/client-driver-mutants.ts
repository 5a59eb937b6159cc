// The mutant clients of `client-driver.ts --mutant NAME`: wrappers around credit402/client's fetch, storage or callback, never options of the library.
import type { ClientIdStorage, PaymentDecision } from 'credit402/client';
import type { Callback, ClientDriverHooks, Send } from 'credit402/internal/client/driver';
import { decodeBase64Json, encodeBase64Json } from 'credit402/protocol';

/** Where a mutant differs from the correct client (absent: as it is); made anew with every client. */
export type MutantHooks = ClientDriverHooks;

/** The decoded `payment` payload of `request`, if it carries a readable one. */
function payloadOf(request: Request): Record<string, unknown> | undefined {
  const header = request.headers.get('payment');
  const decoded = header === null ? undefined : decodeBase64Json(header);
  return decoded?.ok && typeof decoded.value === 'object' && decoded.value !== null ? (decoded.value as Record<string, unknown>) : undefined;
}

/** `request` with its `payment` header replaced by `payload` (removed when undefined). */
function withPayload(request: Request, payload: Record<string, unknown> | undefined): Request {
  const headers = new Headers(request.headers);
  if (payload === undefined) headers.delete('payment');
  else headers.set('payment', encodeBase64Json(payload));
  return new Request(request, { headers });
}

/** A payment error answer with one of `statuses` (a PaymentResponse body with `success: false`, no challenge). */
async function isPaymentError(response: Response, statuses: readonly number[]): Promise<boolean> {
  if (!statuses.includes(response.status) || response.headers.has('payment-required')) return false;
  try {
    return (JSON.parse(await response.clone().text()) as { success?: unknown }).success === false;
  } catch {
    return false;
  }
}

/** Sends each request carrying a paymentMethodId twice, at once after its answer (unless a payment error), and returns the first answer. */
const paysTwice = (send: Send): Send => async (request) => {
  if (typeof payloadOf(request)?.paymentMethodId !== 'string') return send(request);
  const first = await send(request.clone());
  if (!(await isPaymentError(first, [402, 503]))) await (await send(request)).arrayBuffer();
  return first;
};

/** Hands any origin the clientId kept for it, or else the last clientId kept for any origin. */
function otherOrigin(storage: ClientIdStorage): ClientIdStorage {
  let last: string | undefined;
  return {
    get: async (origin) => (await storage.get(origin)) ?? last,
    set: async (origin, clientId) => {
      last = clientId;
      await storage.set(origin, clientId);
    },
  };
}

/** Lets the library send no top-up where the callback approved one below minTopUp, then puts that top-up in the payload. */
function ignoresMinTopUp(): MutantHooks {
  let approved: number | undefined;
  return {
    callback: (callback) => async (info) => {
      const decision = await callback(info);
      approved = undefined;
      if (decision?.topUpAmount === undefined || decision.topUpAmount >= info.accepts.minTopUp) return decision;
      approved = decision.topUpAmount;
      return { paymentMethodId: decision.paymentMethodId };
    },
    fetch: (send) => async (request) => {
      const payload = payloadOf(request);
      if (approved === undefined || typeof payload?.paymentMethodId !== 'string' || payload.topUpAmount !== undefined) return send(request);
      return send(withPayload(request, { ...payload, topUpAmount: approved }));
    },
  };
}

/** Sends a request answered with a 402 payment error again, three more times. */
const loopsOnPaymentErrors = (send: Send): Send => async (request) => {
  let response = await send(request.clone());
  for (let again = 0; again < 3 && (await isPaymentError(response, [402])); again++) response = await send(request.clone());
  return response;
};

/** Answers an `insufficient_credits` challenge with the last approved payment, without asking the caller's callback. */
function repaysInsufficient(callback: Callback): Callback {
  let last: PaymentDecision | undefined;
  return async (info) => {
    if (info.reason === 'insufficient_credits' && last !== undefined) return last;
    const decision = await callback(info);
    if (decision) last = decision;
    return decision;
  };
}

/**
 * Sends a request that presents a kept clientId (and pays nothing) first without it, and with it only after a
 * challenge. A request that went without the clientId carried no payment, so, as the library does with such requests,
 * its 503 is not sent again: the library's retry of it gets the same 503 back.
 */
function twoRoundTrips(): MutantHooks {
  const unavailable = new Map<string, Response>();
  return {
    fetch: (send) => async (request) => {
      const payload = payloadOf(request);
      if (typeof payload?.clientId !== 'string' || payload.paymentMethodId !== undefined) return send(request);
      const key = String(payload.requestId);
      const earlier = unavailable.get(key);
      if (earlier !== undefined) return earlier.clone();
      const bare = await send(withPayload(request.clone(), undefined));
      if (bare.status === 503) unavailable.set(key, bare.clone());
      if (bare.status !== 402 || !bare.headers.has('payment-required')) return bare;
      await bare.arrayBuffer();
      return send(request);
    },
  };
}

/** Returns a challenge to the caller, declined, without asking the callback, once a clientId is kept for its origin. */
function noCallbackOnceFunded(): MutantHooks {
  let kept: ClientIdStorage | undefined;
  return {
    storage: (storage) => (kept = storage),
    callback: (callback) => async (info) => ((await kept?.get(new URL(info.url).origin)) === undefined ? callback(info) : null),
  };
}

/** Lets the underlying fetch follow redirects itself, which keeps the `payment` header on the way to another origin. */
const followsRedirects = (send: Send): Send => (request) => send(new Request(request, { redirect: 'follow' }));

/** Sends the request that pays with its `payment` header only, without the headers the caller set. */
const dropsHeadersOnPayment = (send: Send): Send => (request) => {
  const payment = request.headers.get('payment');
  if (payment === null || typeof payloadOf(request)?.paymentMethodId !== 'string') return send(request);
  return send(new Request(request, { headers: { payment } }));
};

/** Hands the callback the challenge's amount as a string (`"500"`), its other values as they are. */
const stringAmount = (callback: Callback): Callback => (info) => {
  // The fault itself: a value of another type than the library's own (its type says number), made on purpose.
  const amount = String(info.accepts.amount) as unknown as number;
  return callback({ ...info, accepts: { ...info.accepts, amount } });
};

/** Each mutant's hooks (client-mutants.ts) by name, made fresh for one client. */
const MUTANT_HOOKS = new Map<string, () => MutantHooks>([
  ['pays-twice', () => ({ fetch: paysTwice })],
  ['other-origin', () => ({ storage: otherOrigin })],
  ['ignores-min-top-up', ignoresMinTopUp],
  ['loops-on-payment-errors', () => ({ fetch: loopsOnPaymentErrors })],
  ['repays-insufficient', () => ({ callback: repaysInsufficient })],
  ['two-round-trips', twoRoundTrips],
  ['concurrent-charges', () => ({ clientPerCall: true })],
  ['no-callback-once-funded', noCallbackOnceFunded],
  ['follows-redirects', () => ({ fetch: followsRedirects })],
  ['drops-headers-on-payment', () => ({ fetch: dropsHeadersOnPayment })],
  ['string-amount', () => ({ callback: stringAmount })],
]);

/** The hooks of the mutant `name` (client-mutants.ts), fresh for one client. */
export function mutantHooks(name: string): MutantHooks {
  const hooks = MUTANT_HOOKS.get(name);
  if (hooks === undefined) throw new Error(`unknown client mutant ${name}`);
  return hooks();
}
