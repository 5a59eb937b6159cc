// Dashboard-side actions on a paid PaymentIntent or charge: refunds (`charge.refunded`) and disputes (`charge.dispute.created`).
import { ControlError } from './errors.ts';
import { newId, unixNow } from './ids.ts';
import type { EmulatorState } from './context.ts';
import type { DisputeResult, RefundResult } from './control-types.ts';
import type { Charge, Dispute, Refund } from './objects.ts';

const DASHBOARD_REQUEST = { id: null, idempotency_key: null };

/** The succeeded charge of a payment intent, or a control error saying why there is none. */
function paidCharge(state: EmulatorState, paymentIntentId: string): Charge {
  const intent = state.store.paymentIntents.get(paymentIntentId);
  if (!intent) throw new ControlError(404, `No such payment_intent: '${paymentIntentId}'`);
  const charge = intent.latest_charge ? state.store.charges.get(intent.latest_charge) : undefined;
  if (intent.status !== 'succeeded' || !charge || charge.status !== 'succeeded') {
    throw new ControlError(400, `PaymentIntent ${paymentIntentId} has no succeeded charge (status ${intent.status}).`);
  }
  return charge;
}

/** The charge `id` names, when succeeded: a control error saying why not otherwise. */
function succeededCharge(state: EmulatorState, id: string): Charge {
  const charge = state.store.charges.get(id);
  if (!charge) throw new ControlError(404, `No such charge: '${id}'`);
  if (charge.status !== 'succeeded') throw new ControlError(400, `Charge ${id} has not succeeded (status ${charge.status}).`);
  return charge;
}

/** The paid charge of a PaymentIntent (`pi_…`) or the charge itself (`ch_…`, `py_…`). */
const chargeOf = (state: EmulatorState, id: string): Charge => (/^(ch|py)_/.test(id) ? succeededCharge(state, id) : paidCharge(state, id));

/** Refunds `amount` (default: all that is left) of the intent's charge, or of the charge `id` names; emits `charge.refunded`. */
export function refundPaymentIntent(state: EmulatorState, id: string, amount?: number): RefundResult {
  const charge = chargeOf(state, id);
  const left = charge.amount - charge.amount_refunded;
  if (left === 0) throw new ControlError(400, `Charge ${charge.id} has already been refunded.`);
  const value = amount ?? left;
  if (!Number.isInteger(value) || value < 1) throw new ControlError(400, 'amount must be a positive integer');
  if (value > left) throw new ControlError(400, `Refund amount (${value}) is greater than unrefunded amount on charge (${left}).`);
  const refund: Refund = {
    id: newId('re'),
    object: 'refund',
    amount: value,
    charge: charge.id,
    created: unixNow(),
    currency: charge.currency,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: null,
    receipt_number: null,
    status: 'succeeded',
  };
  state.store.refunds.set(refund.id, refund);
  charge.amount_refunded += value;
  charge.refunded = charge.amount_refunded === charge.amount;
  const event = state.webhooks.emit('charge.refunded', charge, DASHBOARD_REQUEST);
  return { refund, charge: structuredClone(charge), event };
}

/**
 * Opens a dispute (reason `fraudulent` unless given) of `amount` (default: all that is not refunded) on the intent's
 * charge, or on the charge `id` names; emits `charge.dispute.created`.
 */
export function disputePaymentIntent(state: EmulatorState, id: string, reason = 'fraudulent', amount?: number): DisputeResult {
  const charge = chargeOf(state, id);
  if (charge.disputed) throw new ControlError(400, `Charge ${charge.id} is already disputed.`);
  const left = charge.amount - charge.amount_refunded;
  if (left === 0) throw new ControlError(400, `Charge ${charge.id} is fully refunded and cannot be disputed.`);
  const value = amount ?? left;
  if (!Number.isInteger(value) || value < 1) throw new ControlError(400, 'amount must be a positive integer');
  if (value > left) throw new ControlError(400, `Dispute amount (${value}) is greater than the unrefunded amount on charge (${left}).`);
  const dispute: Dispute = {
    id: newId('dp'),
    object: 'dispute',
    amount: value,
    charge: charge.id,
    created: unixNow(),
    currency: charge.currency,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason,
    status: 'needs_response',
  };
  state.store.disputes.set(dispute.id, dispute);
  charge.disputed = true;
  const event = state.webhooks.emit('charge.dispute.created', dispute, DASHBOARD_REQUEST);
  return { dispute, charge: structuredClone(charge), event };
}
