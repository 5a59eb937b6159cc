// Charges: the `ch_…` created by each payment attempt (succeeded, failed or pending), GET /v1/charges/:id and GET /v1/disputes/:id.
import { foundOr404, retrieveRoute } from './retrieve-route.ts';
import { newId, unixNow } from './ids.ts';
import type { ApiRoute, EmulatorState } from './context.ts';
import type { Charge, PaymentIntent, PaymentMethod } from './objects.ts';

/** How the attempt ended: paid, declined (with the card error), or still pending (bank debits). */
type ChargeResult = { kind: 'succeeded'; captured: boolean } | { kind: 'failed'; code: string; declineCode: string; message: string } | { kind: 'pending' };

const outcomeOf = (result: ChargeResult): Charge['outcome'] => {
  const base = { advice_code: null, network_advice_code: null, network_decline_code: null, risk_level: 'normal', risk_score: 20 };
  if (result.kind === 'failed') {
    return { ...base, network_status: 'declined_by_network', reason: result.declineCode, seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' };
  }
  return { ...base, network_status: 'approved_by_network', reason: null, seller_message: 'Payment complete.', type: 'authorized' };
};

/** Records the charge of one attempt to pay `intent` with `method`. */
export function createCharge(state: EmulatorState, intent: PaymentIntent, method: PaymentMethod, result: ChargeResult): Charge {
  const succeeded = result.kind === 'succeeded';
  const captured = succeeded && result.captured;
  const charge: Charge = {
    id: newId(method.type === 'card' ? 'ch' : 'py'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: captured ? intent.amount : 0,
    amount_refunded: 0,
    billing_details: structuredClone(method.billing_details),
    captured,
    created: unixNow(),
    currency: intent.currency,
    customer: intent.customer,
    description: intent.description,
    disputed: false,
    failure_code: result.kind === 'failed' ? result.code : null,
    failure_message: result.kind === 'failed' ? result.message : null,
    livemode: false,
    metadata: { ...intent.metadata },
    outcome: result.kind === 'pending' ? null : outcomeOf(result),
    paid: succeeded,
    payment_intent: intent.id,
    payment_method: method.id,
    receipt_email: intent.receipt_email,
    refunded: false,
    status: succeeded ? 'succeeded' : result.kind,
  };
  state.store.charges.set(charge.id, charge);
  return charge;
}

/**
 * A succeeded, captured charge without a PaymentIntent, as the legacy Charges API creates them (`payment_intent: null`);
 * for tests of refunds and disputes of such charges. No event is emitted (Stripe emits `charge.succeeded`, which the
 * emulator does not model).
 */
export function createChargeWithoutPaymentIntent(state: EmulatorState, method: PaymentMethod, amount: number, currency: string): Charge {
  const charge: Charge = {
    id: newId(method.type === 'card' ? 'ch' : 'py'),
    object: 'charge',
    amount,
    amount_captured: amount,
    amount_refunded: 0,
    billing_details: structuredClone(method.billing_details),
    captured: true,
    created: unixNow(),
    currency,
    customer: method.customer,
    description: null,
    disputed: false,
    failure_code: null,
    failure_message: null,
    livemode: false,
    metadata: {},
    outcome: outcomeOf({ kind: 'succeeded', captured: true }),
    paid: true,
    payment_intent: null,
    payment_method: method.id,
    receipt_email: null,
    refunded: false,
    status: 'succeeded',
  };
  state.store.charges.set(charge.id, charge);
  return charge;
}

export const chargeRoutes: ApiRoute[] = [
  retrieveRoute('/v1/charges/:id', (state, id) => foundOr404(state.store.charges.get(id), 'charge', id)),
  retrieveRoute('/v1/disputes/:id', (state, id) => foundOr404(state.store.disputes.get(id), 'dispute', id)),
];
