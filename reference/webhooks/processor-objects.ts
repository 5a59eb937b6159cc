// What a verified event is about, as the processor has it: the webhook engine acts on retrieved objects, never on the body.
import type { Processor, ProcessorEvent } from '../processor/processor.ts';
import { readTopUp } from '../processor/top-up-metadata.ts';

/** The retrievals webhooks need (the Stripe processor has them). */
export type RetrievingProcessor = Required<Pick<Processor, 'retrievePaymentIntent' | 'retrieveCharge' | 'retrieveDispute'>>;

/** Names of the retrievals, for configuration checks. */
export const RETRIEVALS = ['retrievePaymentIntent', 'retrieveCharge', 'retrieveDispute'] as const;

/** Why an event whose object the processor does not have is ignored. */
const unknownObject = (kind: string, id: string): string => `the processor has no ${kind} ${JSON.stringify(id)}`;

/**
 * Rebuilds a verified event from the objects the processor returns for the ids its body names (CR-14.3, CR-14.4): a
 * correct signature proves only that the body was signed with the endpoint's secret, which may have leaked. Resolves
 * to the event to apply, or to the reason to ignore it (the processor has no such object). Rejects when the processor
 * could not be asked; the caller answers 5xx so that the event is delivered again.
 */
export async function withProcessorObjects(processor: RetrievingProcessor, event: ProcessorEvent): Promise<ProcessorEvent | string> {
  switch (event.type) {
    case 'payment_intent.succeeded': {
      const intent = await processor.retrievePaymentIntent(event.paymentIntentId);
      if (!intent) return unknownObject('PaymentIntent', event.paymentIntentId);
      const read = intent.status === 'succeeded' ? readTopUp(intent) : `status ${intent.status}`;
      return typeof read === 'string'
        ? { id: event.id, type: event.type, paymentIntentId: intent.id, topUp: null, ignoredBecause: read }
        : { id: event.id, type: event.type, paymentIntentId: intent.id, topUp: read };
    }
    case 'charge.refunded': {
      const charge = await processor.retrieveCharge(event.chargeId);
      if (!charge) return unknownObject('charge', event.chargeId);
      return { id: event.id, type: event.type, paymentIntentId: charge.paymentIntentId, chargeId: charge.id, amountRefundedCents: charge.amountRefundedCents };
    }
    case 'charge.dispute.created': {
      const dispute = await processor.retrieveDispute(event.disputeId);
      if (!dispute) return unknownObject('dispute', event.disputeId);
      return { id: event.id, type: event.type, paymentIntentId: dispute.paymentIntentId, disputeId: dispute.id, amountCents: dispute.amountCents };
    }
    default:
      return event;
  }
}
