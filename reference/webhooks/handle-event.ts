// What a verified processor event does to the store: credit a top-up, or take a refund or dispute back.
import { UNITS_PER_MINOR } from '../protocol/constants.ts';
import type { ProcessorEvent } from '../processor/processor.ts';
import { NOT_A_TOP_UP } from '../processor/top-up-metadata.ts';
import type { WebhookStore } from '../stores/capabilities.ts';
import { isStoreReset } from '../stores/store-identity.ts';

export type { WebhookStore };

/** Why a top-up whose PaymentIntent names a store id the store does not hold (any more) is not credited. */
export const OTHER_STORE = 'the PaymentIntent was charged under another store id: another store, or this store before it was reset';

/** What handling one event did. */
export type WebhookOutcome =
  | { action: 'credited' | 'already_credited'; paymentIntentId: string; clientId: string; balance: number }
  | { action: 'reversed'; paymentIntentId: string; key: string; taken: number; pending: boolean }
  | { action: 'ignored'; reason: string };

/**
 * Applies one event. Every effect is idempotent in the store (credit once per PaymentIntent; each
 * reversal key kept at its highest amount), so duplicates and any delivery order end in the same state:
 * the client has credited − min(credited, refunded + disputed) from each top-up.
 */
export async function applyProcessorEvent(store: WebhookStore, event: ProcessorEvent): Promise<WebhookOutcome> {
  switch (event.type) {
    case 'payment_intent.succeeded': {
      if (event.topUp === null) return { action: 'ignored', reason: event.ignoredBecause ?? NOT_A_TOP_UP };
      const { clientId, units, currency, storeId } = event.topUp;
      const credit = { clientId, currency, amount: units, paymentIntentId: event.paymentIntentId, ...(storeId === undefined ? {} : { storeId }) };
      // A PaymentIntent of another store, or of this store before it was reset, is acknowledged and not credited (CR-14.13).
      const result = await store.creditTopUp(credit).catch((error: unknown) => (isStoreReset(error) ? null : Promise.reject(error)));
      if (result === null) return { action: 'ignored', reason: OTHER_STORE };
      return { action: result.credited ? 'credited' : 'already_credited', paymentIntentId: event.paymentIntentId, clientId, balance: result.balance };
    }
    case 'charge.refunded':
      return reverse(store, event.paymentIntentId, `refund:${event.chargeId}`, event.amountRefundedCents);
    case 'charge.dispute.created':
      return reverse(store, event.paymentIntentId, `dispute:${event.disputeId}`, event.amountCents);
    default:
      return { action: 'ignored', reason: `event type ${event.processorType} is not handled` };
  }
}

/**
 * Records `cents` (cumulative for the key) as units; the store caps what it takes at the credited top-up. A charge
 * or dispute whose `payment_intent` is absent, null or empty has no PaymentIntent: acknowledged, nothing changes
 * (CR-14.4). The reversal is kept as a reversal entry of the store, not as a transaction record (CR-11.7, CR-14.11).
 */
async function reverse(store: WebhookStore, paymentIntentId: string | null, key: string, cents: number): Promise<WebhookOutcome> {
  if (typeof paymentIntentId !== 'string' || paymentIntentId.length === 0) return { action: 'ignored', reason: 'the charge has no PaymentIntent' };
  if (cents <= 0) return { action: 'ignored', reason: 'no amount' };
  const result = await store.reverseTopUp({ paymentIntentId, key, amount: cents * UNITS_PER_MINOR });
  return { action: 'reversed', paymentIntentId, key, taken: result.taken, pending: result.clientId === null };
}
