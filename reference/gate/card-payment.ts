// The new-payment path (seed section 4, step 5): charge a card, credit the top-up, deduct the price.
import { createHash } from 'node:crypto';
import { MESSAGES } from '../protocol/constants.ts';
import { deriveClientId } from '../protocol/identity.ts';
import { unitsToCents } from '../protocol/units.ts';
import { PaymentError } from '../processor/processor.ts';
import { topUpMetadata } from '../processor/top-up-metadata.ts';
import type { GateContext, GatedRoute } from './context.ts';
import type { GateDecision } from './decision.ts';
import { processorCall, storeCall, storeFailure } from './failures.ts';
import { withPaymentLock } from './payment-lock.ts';
import { paymentError } from './responses.ts';
import { spendBalance } from './spend.ts';
import { CREDIT_REFUSED_AFTER_RESET, OUTCOME_UNKNOWN } from './store-outcome.ts';
import { isStoreReset } from '../stores/store-identity.ts';
import { clientTag } from './events.ts';

/**
 * Idempotency key of a charge (CR-7.16): the same top-up retried before it is credited gets the same key. The store's
 * id comes first, so that two stores (staging and production, or a store restored from scratch) on one processor
 * account never send each other's keys: their `topUps` both start at 0.
 */
function chargeKey(storeId: string, clientId: string, topUps: number, paymentMethodId: string, route: GatedRoute, topUp: number): string {
  const material = [storeId, clientId, topUps, paymentMethodId, route.key, topUp, route.currency].join('\n');
  return `credit402-topup-${createHash('sha256').update(material).digest('hex')}`;
}

/** A PaymentMethod id as Stripe issues them (CR-7.27): nothing else reaches the processor's URLs or idempotency keys. */
const PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9_]{1,97}$/;

/** Runs steps 5.1 to 5.13 for a payload carrying a payment method. */
export async function payByCard(
  ctx: GateContext,
  route: GatedRoute,
  paymentMethodId: string,
  requestedTopUp: number | undefined,
  requestId: string | undefined,
): Promise<GateDecision> {
  if (!PAYMENT_METHOD_ID.test(paymentMethodId)) {
    return paymentError('invalid_payment', 'Invalid payment header: paymentMethodId must be pm_ followed by 1 to 97 letters, digits or underscores');
  }
  const topUp = requestedTopUp ?? route.minTopUp;
  if (topUp < route.minTopUp) {
    return paymentError('top_up_below_minimum', `Top-up amount ${topUp} units is below the minimum top-up of ${route.minTopUp} units`);
  }
  if (topUp > route.maxTopUp) {
    return paymentError('invalid_payment', `Invalid payment header: topUpAmount must not exceed ${route.maxTopUp} units`);
  }
  const { processor, report } = ctx;
  const fingerprint = await processorCall(report, 'getCardFingerprint', () => processor.getCardFingerprint(paymentMethodId));
  const clientId = deriveClientId(fingerprint, ctx.serverSecret);
  return withPaymentLock(ctx, clientId, () => chargeAndCredit(ctx, route, { clientId, paymentMethodId, topUp, requestId }));
}

/**
 * Steps 5.4 to 5.13, run under the client's payment lock: spend an existing balance first (a request
 * that waited for another payment of the same card is served here), otherwise charge, credit, deduct.
 * The client's `topUps` (n of the charge key, CR-7.16) is read before the balance is tried: a credit that lands
 * between the two (the late credit of an earlier attempt of this request, whose store call timed out) then either
 * serves this attempt from the balance or leaves the key as it was, so that the charge replays that attempt's
 * PaymentIntent, already credited (CR-7.23), instead of making a second one.
 */
async function chargeAndCredit(
  ctx: GateContext,
  route: GatedRoute,
  payer: { clientId: string; paymentMethodId: string; topUp: number; requestId: string | undefined },
): Promise<GateDecision> {
  const { clientId, paymentMethodId, topUp, requestId } = payer;
  const { store, processor, report } = ctx;
  const storeId = await storeCall(report, 'getStoreId', MESSAGES.STORE_UNAVAILABLE, () => store.getStoreId());
  const client = await storeCall(report, 'getClient', MESSAGES.STORE_UNAVAILABLE, () => store.getClient(clientId));
  const existing = await spendBalance(ctx, route, { clientId, requestId });
  if (existing !== null) return existing;

  const amountCents = unitsToCents(topUp);
  const customerId = await processorCall(report, 'findOrCreateCustomer', () => processor.findOrCreateCustomer(clientId, paymentMethodId));
  const charge = await processorCall(report, 'charge', () =>
    processor.charge({
      amountCents,
      currency: route.currency,
      paymentMethodId,
      customerId,
      description: `${ctx.serviceName} top-up for ${route.description ?? route.path}`,
      idempotencyKey: chargeKey(storeId, clientId, client?.topUps ?? 0, paymentMethodId, route, topUp),
      metadata: topUpMetadata(clientId, topUp, storeId),
    }),
  );
  if (!charge.succeeded) throw new PaymentError('payment_failed', MESSAGES.PAYMENT_FAILED, { cause: charge.reason });
  const paid = { route: route.key, currency: route.currency, units: topUp, chargeId: charge.id, client: clientTag(clientId) };
  ctx.emit({ type: 'charge', ...paid, minorUnits: amountCents });

  // Credited only while the store still holds the id the key was made with (CR-14.13): a store reset since then may have
  // let the key replay a PaymentIntent credited before the reset.
  try {
    await store.creditTopUp({ clientId, currency: route.currency, amount: topUp, paymentIntentId: charge.id, storeId });
  } catch (error) {
    throw storeFailure(report, 'creditTopUp', isStoreReset(error) ? CREDIT_REFUSED_AFTER_RESET : OUTCOME_UNKNOWN.CREDIT, error);
  }
  ctx.emit({ type: 'credit', ...paid });
  const served = await spendBalance(ctx, route, { clientId, requestId }, { afterCredit: true, chargeId: charge.id });
  return served ?? route.challenges.insufficient;
}
