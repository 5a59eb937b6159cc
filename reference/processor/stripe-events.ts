// Reduces a verified Stripe event to a ProcessorEvent; structural types only, so that only stripe-processor imports stripe.
import type { ProcessorEvent } from './processor.ts';
import { readTopUp } from './top-up-metadata.ts';

/** The parts of a Stripe event this module reads. */
interface StripeEventLike {
  id: string;
  type: string;
  data: { object: unknown };
}

type Fields = Record<string, unknown>;

/** A non-negative integer amount, or 0 when the field is missing or malformed. */
function cents(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** An id field that may be expanded into an object. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as Fields).id === 'string') return (value as Fields).id as string;
  return null;
}

/** Normalizes the three event types credit402 acts on; every other type becomes `other`. */
export function normalizeStripeEvent(event: StripeEventLike): ProcessorEvent {
  const object = (event.data.object ?? {}) as Fields;
  const id = event.id;
  const objectId = typeof object.id === 'string' ? object.id : '';
  switch (event.type) {
    case 'payment_intent.succeeded': {
      const read = object.status === 'succeeded'
        ? readTopUp({ metadata: object.metadata as Record<string, string> | undefined, amountReceivedCents: cents(object.amount_received), currency: object.currency })
        : `status ${String(object.status)}`;
      return typeof read === 'string'
        ? { id, type: event.type, paymentIntentId: objectId, topUp: null, ignoredBecause: read }
        : { id, type: event.type, paymentIntentId: objectId, topUp: read };
    }
    case 'charge.refunded':
      return { id, type: event.type, paymentIntentId: idOf(object.payment_intent), chargeId: objectId, amountRefundedCents: cents(object.amount_refunded) };
    case 'charge.dispute.created':
      return { id, type: event.type, paymentIntentId: idOf(object.payment_intent), disputeId: objectId, amountCents: cents(object.amount) };
    default:
      return { id, type: 'other', processorType: event.type };
  }
}
