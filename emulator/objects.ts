// Shapes of the Stripe objects the emulator stores and returns: subsets of the official SDK's own types.
import type Stripe from 'stripe';

export type PaymentMethod = Pick<
  Stripe.PaymentMethod,
  'id' | 'object' | 'allow_redisplay' | 'billing_details' | 'card' | 'created' | 'customer_account' | 'livemode' | 'metadata' | 'type' | 'us_bank_account'
> & { customer: string | null };

export type Customer = Pick<
  Stripe.Customer,
  | 'id'
  | 'object'
  | 'address'
  | 'balance'
  | 'created'
  | 'currency'
  | 'default_source'
  | 'delinquent'
  | 'description'
  | 'email'
  | 'invoice_prefix'
  | 'livemode'
  | 'metadata'
  | 'name'
  | 'phone'
  | 'preferred_locales'
  | 'shipping'
  | 'tax_exempt'
> & { invoice_settings: Omit<Stripe.Customer.InvoiceSettings, 'default_payment_method'> & { default_payment_method: string | null } };

export type PaymentIntent = Pick<
  Stripe.PaymentIntent,
  | 'id'
  | 'object'
  | 'allowed_payment_method_types'
  | 'amount'
  | 'amount_capturable'
  | 'amount_received'
  | 'automatic_payment_methods'
  | 'canceled_at'
  | 'cancellation_reason'
  | 'capture_method'
  | 'client_secret'
  | 'confirmation_method'
  | 'created'
  | 'currency'
  | 'description'
  | 'excluded_payment_method_types'
  | 'last_payment_error'
  | 'livemode'
  | 'metadata'
  | 'next_action'
  | 'payment_method_types'
  | 'processing'
  | 'receipt_email'
  | 'setup_future_usage'
  | 'shipping'
  | 'statement_descriptor'
  | 'statement_descriptor_suffix'
  | 'status'
> & { customer: string | null; payment_method: string | null; latest_charge: string | null };

export type Charge = Pick<
  Stripe.Charge,
  | 'id'
  | 'object'
  | 'amount'
  | 'amount_captured'
  | 'amount_refunded'
  | 'billing_details'
  | 'captured'
  | 'created'
  | 'currency'
  | 'description'
  | 'disputed'
  | 'failure_code'
  | 'failure_message'
  | 'livemode'
  | 'metadata'
  | 'outcome'
  | 'paid'
  | 'receipt_email'
  | 'refunded'
  | 'status'
> & { customer: string | null; payment_intent: string | null; payment_method: string };

export type Refund = Pick<
  Stripe.Refund,
  'id' | 'object' | 'amount' | 'created' | 'currency' | 'metadata' | 'reason' | 'receipt_number' | 'status'
> & { charge: string; payment_intent: string | null };

export type Dispute = Pick<
  Stripe.Dispute,
  'id' | 'object' | 'amount' | 'created' | 'currency' | 'is_charge_refundable' | 'livemode' | 'metadata' | 'reason' | 'status'
> & { charge: string; payment_intent: string | null };

/** Event types the emulator emits. */
export type EventType = 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'charge.refunded' | 'charge.dispute.created';

/** A Stripe event as delivered to webhook endpoints. */
export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: PaymentIntent | Charge | Dispute };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: EventType;
}

/** Every stored object, for expansion and lookup by id. */
export type StoredObject = PaymentMethod | Customer | PaymentIntent | Charge | Refund | Dispute | StripeEvent;
