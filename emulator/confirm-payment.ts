// Confirming a PaymentIntent: the payment method's outcome becomes its status, charge, events and card errors.
import { AUTHENTICATION_REQUIRED, cardOutcome } from './cards.ts';
import { createCharge } from './charges.ts';
import { cardError, docUrl } from './errors.ts';
import { eventRequest } from './context.ts';
import type { ApiRequest, EmulatorState } from './context.ts';
import type { PaymentIntent, PaymentMethod } from './objects.ts';
import type { Decline } from './cards.ts';

interface ConfirmOptions {
  offSession: boolean;
  errorOnRequiresAction: boolean;
  returnUrl: string | null;
}


function nextAction(intent: PaymentIntent, returnUrl: string | null): PaymentIntent['next_action'] {
  const url = `https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_emulator&payment_intent=${intent.id}`;
  if (returnUrl) return { type: 'redirect_to_url', redirect_to_url: { url, return_url: returnUrl } };
  return { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: url } } as PaymentIntent['next_action'];
}

/** Stores the declined attempt, emits `payment_intent.payment_failed`, and throws Stripe's 402 card error. */
function decline(state: EmulatorState, req: ApiRequest, intent: PaymentIntent, method: PaymentMethod, outcome: Decline): never {
  const charge = createCharge(state, intent, method, { kind: 'failed', code: outcome.code, declineCode: outcome.declineCode, message: outcome.message });
  const error = {
    charge: charge.id,
    code: outcome.code,
    decline_code: outcome.declineCode,
    doc_url: docUrl(outcome.code),
    message: outcome.message,
    payment_method: structuredClone(method),
    type: 'card_error' as const,
  };
  Object.assign(intent, {
    status: 'requires_payment_method',
    payment_method: null,
    latest_charge: charge.id,
    last_payment_error: error,
  } satisfies Partial<PaymentIntent>);
  state.store.paymentIntents.set(intent.id, intent);
  state.webhooks.emit('payment_intent.payment_failed', intent, eventRequest(req));
  throw cardError({ ...error, payment_intent: structuredClone(intent) });
}

/** Runs the confirmation of a stored-to-be intent in place; stores it; throws the card error of a decline. */
export function confirmPayment(state: EmulatorState, req: ApiRequest, intent: PaymentIntent, method: PaymentMethod, options: ConfirmOptions): void {
  const store = state.store;
  if (method.type !== 'card') {
    const charge = createCharge(state, intent, method, { kind: 'pending' });
    Object.assign(intent, { status: 'processing', latest_charge: charge.id } satisfies Partial<PaymentIntent>);
    store.paymentIntents.set(intent.id, intent);
    return;
  }
  const outcome = cardOutcome(store.cardNumbers.get(method.id) ?? '');
  if (outcome.kind === 'decline') decline(state, req, intent, method, outcome);
  if (outcome.kind === 'authenticate') {
    if (options.offSession || options.errorOnRequiresAction) decline(state, req, intent, method, AUTHENTICATION_REQUIRED);
    Object.assign(intent, { status: 'requires_action', next_action: nextAction(intent, options.returnUrl) } satisfies Partial<PaymentIntent>);
    store.paymentIntents.set(intent.id, intent);
    return;
  }
  const manual = intent.capture_method === 'manual';
  const charge = createCharge(state, intent, method, { kind: 'succeeded', captured: !manual });
  Object.assign(intent, {
    status: manual ? 'requires_capture' : 'succeeded',
    amount_capturable: manual ? intent.amount : 0,
    amount_received: manual ? 0 : intent.amount,
    latest_charge: charge.id,
  } satisfies Partial<PaymentIntent>);
  store.paymentIntents.set(intent.id, intent);
  if (!manual) state.webhooks.emit('payment_intent.succeeded', intent, eventRequest(req));
}
