// Charges: the `ch_…` created by each payment attempt (succeeded, failed or pending), and GET /v1/charges/:id.
import { resourceMissing } from './errors.ts';
import { expandObject } from './expand.ts';
import { newId, unixNow } from './ids.ts';
import { list, parseWith, string } from './param-schema.ts';
import type { ApiRoute, EmulatorState } from './context.ts';
import type { Charge, PaymentIntent, PaymentMethod } from './objects.ts';

/** How the attempt ended: paid, declined (with the card error), or still pending (bank debits). */
export type ChargeResult = { kind: 'succeeded'; captured: boolean } | { kind: 'failed'; code: string; declineCode: string; message: string } | { kind: 'pending' };

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

export const chargeRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/v1/charges/:id',
    handle(req, state) {
      const p = parseWith(req.params, { expand: list(string()) });
      const charge = state.store.charges.get(req.pathParams.id ?? '');
      if (!charge) throw resourceMissing('charge', req.pathParams.id ?? '');
      return expandObject(charge, p.expand, (id) => state.store.find(id));
    },
  },
];
