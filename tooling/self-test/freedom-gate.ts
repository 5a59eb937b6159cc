// The freedom target's decision on a gated request: its own reading of the header, then the reference gate on what it read (spec Appendix C).
import type { Gate, GateDecision, GatedRoute } from 'credit402/gate';
import { encodeBase64Json, MESSAGES } from 'credit402/protocol';
import { freedomAnswer } from './freedom-answers.ts';
import { readFreedomPayment, type FreedomPayload } from './freedom-payload.ts';
import { requestFreedoms, type RequestFreedoms } from './freedom-processor.ts';

/** Stripe's PaymentMethod ids: a payload's id of another shape reaches the processor through this stand-in (L-27). */
const STRIPE_PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9_]{1,97}$/;
const STAND_IN_PAYMENT_METHOD = 'pm_freedom_stand_in';

/** A payment error as the reference gate gives one (CR-8.1), with its private headers (CR-3.13). */
function paymentError(errorCode: 'invalid_payment', message: string): GateDecision {
  const body = { success: false, creditsRemaining: 0, clientId: '', error: message, errorCode };
  return { action: 'respond', status: 402, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', vary: 'payment' }, body, code: errorCode };
}

/** The answer to a payload naming neither a clientId nor a payment method: a payment error that fails closed (L-12). */
const NEITHER = paymentError('invalid_payment', 'Invalid payment header: it carries neither a clientId nor a paymentMethodId');

/** What the gate is handed for a payload, and what the answer then needs to say of the payload as it was. */
interface Handed {
  payload: Record<string, unknown>;
  freedoms: RequestFreedoms;
  /** A `topUpAmount` at or below 0, handed on as 1 so that the gate answers `top_up_below_minimum` (L-9). */
  belowMinimum?: number;
}

/** The payload the gate can read: stand-ins for a payment method id of another shape (L-27), a top-up ≤ 0 (L-9) or above the ceiling (L-23). */
function handed(payload: FreedomPayload, route: GatedRoute): Handed {
  const { clientId, paymentMethodId, topUpAmount } = payload;
  const result: Handed = { payload: {}, freedoms: {} };
  if (clientId !== undefined) result.payload.clientId = clientId;
  if (paymentMethodId !== undefined && STRIPE_PAYMENT_METHOD_ID.test(paymentMethodId)) result.payload.paymentMethodId = paymentMethodId;
  else if (paymentMethodId !== undefined) {
    result.payload.paymentMethodId = STAND_IN_PAYMENT_METHOD;
    result.freedoms.paymentMethodId = paymentMethodId;
  }
  if (topUpAmount === undefined) return result;
  if (topUpAmount <= 0) {
    result.payload.topUpAmount = 1;
    result.belowMinimum = topUpAmount;
  } else if (topUpAmount > route.maxTopUp) {
    result.payload.topUpAmount = route.maxTopUp;
    result.freedoms.topUp = topUpAmount;
  } else result.payload.topUpAmount = topUpAmount;
  return result;
}

/** `decision` with its payment error's `error` message replaced. */
function withMessage(decision: GateDecision, message: string): GateDecision {
  if (decision.action !== 'respond') return decision;
  return { ...decision, body: { ...(decision.body as Record<string, unknown>), error: message } };
}

/** The gate's answer to a payload, told as the payload was: its top-up ≤ 0 (L-9), the processor's message (L-24 to L-26), the step-11 race (L-31). */
async function decidePayload(gate: Gate, route: GatedRoute, method: string, path: string, payload: FreedomPayload): Promise<GateDecision> {
  const { payload: given, freedoms, belowMinimum } = handed(payload, route);
  const decision = await requestFreedoms.run(freedoms, () => gate.handle({ method, url: path, route, paymentHeader: encodeBase64Json(given) }));
  if (decision.action !== 'respond') return decision;
  if (decision.code === 'top_up_below_minimum' && belowMinimum !== undefined) {
    return withMessage(decision, `Top-up amount ${belowMinimum} units is below the minimum top-up of ${route.minTopUp} units`);
  }
  if (decision.code === 'payment_failed' && freedoms.processorMessage !== undefined) return withMessage(decision, freedoms.processorMessage);
  if (decision.code === 'insufficient_credits' && freedoms.charged === true) return gate.handle({ method, url: path, route, paymentHeader: undefined });
  return decision;
}

/**
 * Decides a request to `route` (the route key `method` and `path` named exactly) from its `payment` field lines as
 * received: no header, an empty one (L-1) and a payload the target cannot use (L-7, L-8) get the plain challenge, a
 * value no base64 reads is `Malformed payment header`, a payload naming neither a clientId nor a payment method is
 * refused (L-12); a payload goes to the reference gate. The answer is given bare and loosely encoded.
 */
export async function decideFreedom(gate: Gate, route: GatedRoute, method: string, path: string, lines: readonly string[]): Promise<GateDecision> {
  const reading = readFreedomPayment(lines);
  let decision: GateDecision;
  if (reading.kind === 'payload') decision = await decidePayload(gate, route, method, path, reading.payload);
  else if (reading.kind === 'malformed') decision = paymentError('invalid_payment', MESSAGES.MALFORMED_HEADER);
  else if (reading.kind === 'neither') decision = NEITHER;
  else decision = await gate.handle({ method, url: path, route, paymentHeader: undefined });
  return freedomAnswer(decision);
}
