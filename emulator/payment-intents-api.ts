// /v1/payment_intents: create (optionally confirming), retrieve, and list by customer.
import { confirmPayment } from './confirm-payment.ts';
import { checkChargeAmount, parseCurrency } from './currency.ts';
import { invalidRequest } from './errors.ts';
import { foundOr404, retrieveRoute } from './retrieve-route.ts';
import { expandObject } from './expand.ts';
import { findCustomer } from './customers-api.ts';
import { findPaymentMethod } from './payment-methods-api.ts';
import { newId, randomBase62, unixNow } from './ids.ts';
import { boolean, integer, list, metadata, object, oneOf, parseWith, string } from './param-schema.ts';
import { paginate } from './list.ts';
import { acceptedPaymentMethods } from './accepted-payment-methods.ts';
import type { ApiRoute, EmulatorState } from './context.ts';
import type { PaymentIntent, PaymentMethod } from './objects.ts';
import type { Parsed } from './param-schema.ts';

const createSchema = {
  amount: integer,
  currency: string(),
  customer: string(),
  payment_method: string(),
  description: string(1000),
  metadata,
  confirm: boolean,
  automatic_payment_methods: object({ enabled: boolean, allow_redirects: oneOf('always', 'never') }, ['enabled']),
  payment_method_types: list(string()),
  allowed_payment_method_types: list(string()),
  excluded_payment_method_types: list(string()),
  capture_method: oneOf('automatic', 'automatic_async', 'manual'),
  confirmation_method: oneOf('automatic', 'manual'),
  receipt_email: string(800),
  statement_descriptor: string(22),
  statement_descriptor_suffix: string(22),
  setup_future_usage: oneOf('off_session', 'on_session'),
  off_session: oneOf('true', 'false', 'one_off', 'recurring'),
  error_on_requires_action: boolean,
  return_url: string(),
  expand: list(string()),
};
type CreateParams = Parsed<typeof createSchema, 'amount' | 'currency'>;

const RETURN_URL_REQUIRED =
  "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`. If you don't want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.";

/** Stripe's cross-parameter checks before anything is stored. */
function checkConfirmation(p: CreateParams, intent: PaymentIntent, method: PaymentMethod | undefined): void {
  const confirm = p.confirm === true;
  if (!confirm && p.return_url !== undefined) {
    throw invalidRequest('The parameter return_url cannot be passed when creating a PaymentIntent unless confirm is set to true.', { param: 'return_url' });
  }
  if (!confirm && p.off_session !== undefined) {
    throw invalidRequest('The parameter off_session cannot be passed when creating a PaymentIntent unless confirm is set to true.', { param: 'off_session' });
  }
  if (method && !intent.payment_method_types.includes(method.type)) {
    throw invalidRequest(
      `The PaymentMethod provided (${method.type}) is not allowed for this PaymentIntent. Please attach a PaymentMethod of one of the following types: ${intent.payment_method_types.join(', ')}.`,
      { param: 'payment_method' },
    );
  }
  if (!confirm) return;
  if (!method) {
    throw invalidRequest(
      "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.",
      { code: 'payment_intent_unexpected_state' },
    );
  }
  const automatic = intent.automatic_payment_methods;
  if (automatic?.enabled && automatic.allow_redirects !== 'never' && p.return_url === undefined) throw invalidRequest(RETURN_URL_REQUIRED);
}

/** The payment method named by `payment_method`, checked against the intent's customer. */
function resolvePaymentMethod(state: EmulatorState, id: string | undefined, customer: string | null): PaymentMethod | undefined {
  if (id === undefined) return undefined;
  const method = findPaymentMethod(state, id, 'payment_method');
  if (method.customer !== null && method.customer !== customer) {
    throw invalidRequest(
      `The PaymentMethod ${method.id} belongs to the Customer ${method.customer}. Please include the Customer in the \`customer\` parameter on the PaymentIntent.`,
      { param: 'payment_method' },
    );
  }
  return method;
}

function newIntent(p: CreateParams, currency: string, method: PaymentMethod | undefined): PaymentIntent {
  const id = newId('pi');
  return {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: null,
    amount: p.amount,
    amount_capturable: 0,
    amount_received: 0,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: p.capture_method ?? 'automatic_async',
    client_secret: `${id}_secret_${randomBase62(25)}`,
    confirmation_method: p.confirmation_method ?? 'automatic',
    created: unixNow(),
    currency,
    customer: p.customer ?? null,
    description: p.description ?? null,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: p.metadata ?? {},
    next_action: null,
    payment_method: method?.id ?? null,
    payment_method_types: ['card'],
    processing: null,
    receipt_email: p.receipt_email ?? null,
    setup_future_usage: p.setup_future_usage ?? null,
    shipping: null,
    statement_descriptor: p.statement_descriptor ?? null,
    statement_descriptor_suffix: p.statement_descriptor_suffix ?? null,
    status: method ? 'requires_confirmation' : 'requires_payment_method',
  };
}

/** A payment intent by id, or Stripe's 404. */
function findPaymentIntent(state: EmulatorState, id: string, param = 'id'): PaymentIntent {
  return foundOr404(state.store.paymentIntents.get(id), 'payment_intent', id, param);
}

export const paymentIntentRoutes: ApiRoute[] = [
  {
    method: 'POST',
    pattern: '/v1/payment_intents',
    handle(req, state) {
      const p = parseWith(req.params, createSchema, ['amount', 'currency']);
      const currency = parseCurrency(p.currency);
      checkChargeAmount(p.amount, currency);
      if (p.customer !== undefined) findCustomer(state, p.customer, 'customer');
      const method = resolvePaymentMethod(state, p.payment_method, p.customer ?? null);
      const intent = { ...newIntent(p, currency, method), ...acceptedPaymentMethods(p) };
      checkConfirmation(p, intent, method);
      if (p.confirm && method) {
        confirmPayment(state, req, intent, method, {
          offSession: p.off_session !== undefined && p.off_session !== 'false',
          errorOnRequiresAction: p.error_on_requires_action === true,
          returnUrl: p.return_url ?? null,
        });
        if (p.setup_future_usage && intent.customer && intent.status === 'succeeded' && !state.store.isTestPaymentMethod(method.id)) {
          method.customer = intent.customer;
        }
      } else {
        state.store.paymentIntents.set(intent.id, intent);
      }
      return expandObject(intent, p.expand, (id) => state.store.find(id));
    },
  },
  retrieveRoute('/v1/payment_intents/:id', (state, id) => findPaymentIntent(state, id), ['client_secret']),
  {
    method: 'GET',
    pattern: '/v1/payment_intents',
    handle(req, state) {
      const p = parseWith(req.params, { customer: string(), limit: integer, starting_after: string(), ending_before: string(), expand: list(string()) });
      const intents = [...state.store.paymentIntents.values()].filter((pi) => p.customer === undefined || pi.customer === p.customer).reverse();
      const page = paginate(intents, p, '/v1/payment_intents', 'payment_intent');
      return expandObject(page, p.expand, (id) => state.store.find(id));
    },
  },
];
