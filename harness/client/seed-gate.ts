// The scripted server's gate: the seed's processing order (seed §4 steps 1–5.13) on one request, bent by the scenario's script.
import { setTimeout as sleep } from 'node:timers/promises';
import { belowMinimumMessage, challengeFor, paymentErrorBody, SCRIPTED_MESSAGES, successResponse, unavailableBody } from './answers.ts';
import { brokenChallenge, brokenPaymentResponse } from './broken-headers.ts';
import type { Ledger, OriginName } from './ledger.ts';
import { FREE_ROUTES, PRICED_ROUTES, type PricedRoute } from './routes.ts';
import type { Scope, Script } from './script.ts';
import { decodePayment, MALFORMED_MESSAGE, PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, encodeJson } from './wire.ts';

/** One request as the gate sees it. */
export interface GateRequest {
  origin: OriginName;
  method: string;
  /** The path without the query. */
  path: string;
  /** The request target as received: the path and the query. */
  target: string;
  body: string;
  /** The `payment` header as received. */
  payment?: string;
}

/** The gate's answer, with what it was (`challenge`, `insufficient_credits`, `served`, `charged`, an error code…). */
export interface GateAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  outcome: string;
}

const json = (status: number, value: unknown, outcome: string, headers: Record<string, string> = {}): GateAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
  outcome,
});

/** Takes a knob: true when it applies; a `next` knob is used up. */
function take<K extends 'challengeAgain' | 'unavailable' | 'paymentError'>(script: Script, key: K, scopeOf: (value: NonNullable<Script[K]>) => Scope): boolean {
  const value = script[key];
  if (value === undefined) return false;
  if (scopeOf(value as NonNullable<Script[K]>) === 'next') delete script[key];
  return true;
}

/** Answers requests of both origins as a seed-following server with the scenario's script. */
export class SeedGate {
  constructor(
    private readonly ledger: Ledger,
    private readonly script: () => Script,
  ) {}

  async answer(request: GateRequest): Promise<GateAnswer> {
    const key = `${request.method} ${request.path}`;
    const route = PRICED_ROUTES[key];
    if (route === undefined) {
      const status = FREE_ROUTES[key] ?? 404;
      return json(status, { route: key }, `free ${status}`);
    }
    const script = this.script();
    if (take(script, 'unavailable', (scope) => scope)) return json(503, unavailableBody(), 'service_unavailable', { 'retry-after': '0' });
    if (request.payment === undefined) return this.#challenge(route, request, false);
    const redirect = script.redirectPaid;
    if (redirect?.from === request.origin) return { status: 307, headers: { location: `${redirect.to}${request.target}` }, body: '', outcome: `redirected to ${redirect.to}` };
    const decoded = decodePayment(request.payment);
    if (!decoded.ok) return this.#error('invalid_payment', MALFORMED_MESSAGE);
    const { clientId, paymentMethodId, topUpAmount } = decoded.payload;
    const wrong = [
      clientId !== undefined && typeof clientId !== 'string' && 'clientId',
      paymentMethodId !== undefined && typeof paymentMethodId !== 'string' && 'paymentMethodId',
      topUpAmount !== undefined && !Number.isSafeInteger(topUpAmount) && 'topUpAmount',
    ].filter(Boolean);
    if (wrong.length > 0) return this.#error('invalid_payment', `Invalid payment payload: ${wrong.join(', ')}`);
    if (typeof clientId === 'string') {
      const remaining = this.ledger.deduct(request.origin, clientId, route.amount);
      if (remaining !== undefined) return this.#served(request, clientId, remaining, 'served');
      if (typeof paymentMethodId !== 'string') return this.#challenge(route, request, true);
    }
    if (typeof paymentMethodId !== 'string') return this.#challenge(route, request, false);
    return this.#newPayment(route, request, paymentMethodId, topUpAmount as number | undefined);
  }

  /** Steps 5.1–5.13; the script may answer with a challenge again or a payment error instead. */
  async #newPayment(route: PricedRoute, request: GateRequest, paymentMethodId: string, topUpAmount: number | undefined): Promise<GateAnswer> {
    const script = this.script();
    if (take(script, 'challengeAgain', (scope) => scope)) return this.#challenge(route, request, false);
    const scripted = script.paymentError;
    if (scripted && take(script, 'paymentError', (value) => value.scope)) return this.#error(scripted.code, SCRIPTED_MESSAGES[scripted.code] ?? scripted.code);
    const topUp = topUpAmount ?? route.minTopUp;
    if (topUp < route.minTopUp) return this.#error('top_up_below_minimum', belowMinimumMessage(topUp, route.minTopUp));
    const clientId = this.ledger.clientIdFor(request.origin, paymentMethodId);
    const remaining = this.ledger.deduct(request.origin, clientId, route.amount);
    if (remaining !== undefined) return this.#served(request, clientId, remaining, 'served');
    if (script.chargeDelayMs) await sleep(script.chargeDelayMs);
    const charge = this.ledger.charge(request.origin, paymentMethodId, topUp);
    const afterCharge = this.ledger.deduct(request.origin, clientId, route.amount) ?? 0;
    return this.#served(request, clientId, afterCharge, 'charged', charge.chargeId);
  }

  #challenge(route: PricedRoute, request: GateRequest, insufficient: boolean): GateAnswer {
    const script = this.script();
    const challenge = challengeFor(route, request.path, { insufficient, forwardCompatible: script.forwardCompatible === true });
    const outcome = insufficient ? 'insufficient_credits' : 'challenge';
    if (script.brokenChallenge) {
      const broken = brokenChallenge(script.brokenChallenge, challenge);
      return { status: 402, headers: { 'content-type': 'application/json', [PAYMENT_REQUIRED_HEADER]: broken.header }, body: broken.body, outcome: `${outcome} (broken: ${script.brokenChallenge})` };
    }
    return json(402, challenge, outcome, { [PAYMENT_REQUIRED_HEADER]: encodeJson(challenge) });
  }

  #error(code: string, message: string): GateAnswer {
    return json(402, paymentErrorBody(code, message), code);
  }

  /** The handler's answer with the success PaymentResponse (broken once when the script says so, on a charge). */
  #served(request: GateRequest, clientId: string, remaining: number, outcome: string, chargeId?: string): GateAnswer {
    const script = this.script();
    const response = successResponse(clientId, remaining, chargeId, script.forwardCompatible === true);
    let header = encodeJson(response);
    if (chargeId && script.brokenPaymentResponse) {
      header = brokenPaymentResponse(script.brokenPaymentResponse, response);
      outcome = `${outcome} (broken payment-response: ${script.brokenPaymentResponse})`;
      delete script.brokenPaymentResponse;
    }
    const key = `${request.method} ${request.path}`;
    const echo = request.method === 'POST';
    const body = echo ? request.body : JSON.stringify({ route: key });
    return { status: 200, headers: { 'content-type': echo ? 'text/plain; charset=utf-8' : 'application/json', [PAYMENT_RESPONSE_HEADER]: header }, body, outcome };
  }
}
