// /v1/payment_methods: create card payment methods (Luhn, expiry, CVC checks) and retrieve them by id.
import { cardError, missingParam } from './errors.ts';
import { foundOr404, retrieveRoute } from './retrieve-route.ts';
import { expandObject } from './expand.ts';
import { luhnValid } from './cards.ts';
import { newId, unixNow } from './ids.ts';
import { integer, list, metadata, object, oneOf, parseWith, string } from './param-schema.ts';
import { cardPaymentMethod, emptyBillingDetails } from './test-payment-methods.ts';
import type { ApiRoute, EmulatorState } from './context.ts';
import type { PaymentMethod } from './objects.ts';

const address = object({ city: string(), country: string(), line1: string(), line2: string(), postal_code: string(), state: string() });

const createSchema = {
  type: oneOf('card'),
  card: object({ number: string(), exp_month: integer, exp_year: integer, cvc: string() }, ['number', 'exp_month', 'exp_year']),
  billing_details: object({ address, email: string(), name: string(), phone: string() }),
  allow_redisplay: oneOf('always', 'limited', 'unspecified'),
  metadata,
  expand: list(string()),
};

const invalidCard = (code: string, message: string, param: string) => cardError({ code, message, param }, false);

/** Stripe's checks on raw card details, in its order: number, expiry month, expiry year, CVC. */
function checkCard(card: { number: string; exp_month: number; exp_year: number; cvc?: string | undefined }): { number: string; year: number } {
  const number = card.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) throw invalidCard('invalid_number', 'The card number is not a valid credit card number.', 'card[number]');
  if (!luhnValid(number)) throw invalidCard('incorrect_number', 'Your card number is incorrect.', 'card[number]');
  if (card.exp_month < 1 || card.exp_month > 12) throw invalidCard('invalid_expiry_month', "Your card's expiration month is invalid.", 'card[exp_month]');
  const year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  const now = new Date();
  const thisYear = now.getUTCFullYear();
  if (year < thisYear || year > thisYear + 50) throw invalidCard('invalid_expiry_year', "Your card's expiration year is invalid.", 'card[exp_year]');
  if (year === thisYear && card.exp_month < now.getUTCMonth() + 1) {
    throw invalidCard('invalid_expiry_month', "Your card's expiration month is invalid.", 'card[exp_month]');
  }
  if (card.cvc !== undefined && !/^\d{3,4}$/.test(card.cvc)) throw invalidCard('invalid_cvc', "Your card's security code is invalid.", 'card[cvc]');
  return { number, year };
}

/** A payment method by id, or Stripe's 404 naming `param`. */
export function findPaymentMethod(state: EmulatorState, id: string, param = 'id'): PaymentMethod {
  return foundOr404(state.store.paymentMethods.get(id), 'PaymentMethod', id, param);
}

export const paymentMethodRoutes: ApiRoute[] = [
  {
    method: 'POST',
    pattern: '/v1/payment_methods',
    publishable: true,
    handle(req, state) {
      const p = parseWith(req.params, createSchema, ['type']);
      if (!p.card) throw missingParam('card');
      const { number, year } = checkCard(p.card);
      const method = cardPaymentMethod(newId('pm'), number, state.store.fingerprint(number), { month: p.card.exp_month, year }, unixNow());
      const { address: given, ...contact } = p.billing_details ?? {};
      const empty = emptyBillingDetails();
      method.billing_details = { ...empty, ...contact, address: { ...empty.address, ...given } } as PaymentMethod['billing_details'];
      method.metadata = p.metadata ?? {};
      method.allow_redisplay = p.allow_redisplay ?? 'unspecified';
      state.store.paymentMethods.set(method.id, method);
      state.store.cardNumbers.set(method.id, number);
      return expandObject(method, p.expand, (id) => state.store.find(id));
    },
  },
  retrieveRoute('/v1/payment_methods/:id', (state, id) => findPaymentMethod(state, id)),
];
