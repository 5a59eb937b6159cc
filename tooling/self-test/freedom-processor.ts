// The freedom target's Stripe processor: the wire level's latitudes towards the processor (spec Appendix C, L-23 to L-29).
import { AsyncLocalStorage } from 'node:async_hooks';
import Stripe from 'stripe';
import { mappingErrors } from 'credit402/internal/processor/mapped-errors';
import { PaymentError, type ChargeRequest, type ChargeResult, type Processor } from 'credit402';
import type { StripeApiBase } from 'credit402/stripe';
import { unitsToCents } from 'credit402/protocol';

/** What one request's gate wrapper tells the processor, and what the processor tells it back. */
export interface RequestFreedoms {
  /** The payload's own `paymentMethodId`, when it is not shaped as Stripe's ids and the gate was handed a stand-in (L-27). */
  paymentMethodId?: string;
  /** The payload's own top-up, when it is above the gate's ceiling and the gate was handed the ceiling (L-23). */
  topUp?: number;
  /** The message of the processor's error, or of the SDK's when the processor gave no answer (L-24, L-25, L-26). */
  processorMessage?: string;
  /** A PaymentIntent of this request succeeded (so an insufficient-credits answer is the step-11 race, L-31). */
  charged?: boolean;
}

/** The freedoms of the request being decided: the gate's calls to the processor run inside it. */
export const requestFreedoms = new AsyncLocalStorage<RequestFreedoms>();

/** How the freedom target's processor reaches Stripe and names its customers. */
export interface FreedomProcessorOptions {
  secretKey: string;
  api: StripeApiBase;
  /** The customer metadata key the target declares (CR-7.19: the wire level takes the key the target declares). */
  customerMetadataKey: string;
}

/** A card error keeps its code and message; any other failure is `payment_failed` with the processor's (or the SDK's) own message. */
function asPaymentError(error: unknown): PaymentError {
  if (error instanceof Stripe.errors.StripeCardError) return new PaymentError('card_declined', error.message, { cause: error });
  const message = error instanceof Error && error.message !== '' ? error.message : 'Stripe request failed';
  const freedoms = requestFreedoms.getStore();
  if (freedoms) freedoms.processorMessage = message;
  return new PaymentError('payment_failed', message, { cause: error });
}

/** Runs an SDK call; whatever it throws is thrown as {@link asPaymentError} maps it. */
const calling = <T>(call: () => Promise<T>): Promise<T> => mappingErrors(call, asPaymentError);

/** The payment method the request named: its own when the gate was handed a stand-in (L-27). */
const paymentMethodOf = (given: string): string => requestFreedoms.getStore()?.paymentMethodId ?? given;

/**
 * A Stripe processor that takes the wire level's latitudes: any payment method id reaches Stripe (L-27), a top-up above
 * the gate's ceiling is charged as asked (L-23), the processor's messages reach the client (L-24 to L-26), the customer
 * search quotes with `"` (L-29) and no call carries an idempotency key or metadata of credit402's (L-28, L-29; the SDK
 * adds its own random key to every POST).
 */
export function freedomProcessor(options: FreedomProcessorOptions): Processor {
  const stripe = new Stripe(options.secretKey, { ...options.api, timeout: 20_000, maxNetworkRetries: 0, telemetry: false });
  const key = options.customerMetadataKey;
  return {
    async getCardFingerprint(paymentMethodId: string): Promise<string> {
      const method = await calling(() => stripe.paymentMethods.retrieve(paymentMethodOf(paymentMethodId)));
      const fingerprint = method.card?.fingerprint;
      if (!fingerprint) throw asPaymentError(new Error('This PaymentMethod is not a card: it has no fingerprint'));
      return fingerprint;
    },
    async findOrCreateCustomer(clientId: string, paymentMethodId: string): Promise<string> {
      const found = await calling(() => stripe.customers.search({ query: `metadata["${key}"]:"${clientId}"`, limit: 1 }));
      const existing = found.data[0];
      if (existing) return existing.id;
      const created = await calling(() => stripe.customers.create({ payment_method: paymentMethodOf(paymentMethodId), metadata: { [key]: clientId } }));
      return created.id;
    },
    async charge(request: ChargeRequest): Promise<ChargeResult> {
      const freedoms = requestFreedoms.getStore();
      const amount = freedoms?.topUp === undefined ? request.amountCents : unitsToCents(freedoms.topUp);
      const intent = await calling(() =>
        stripe.paymentIntents.create({
          amount,
          currency: request.currency,
          customer: request.customerId,
          payment_method: paymentMethodOf(request.paymentMethodId),
          description: request.description,
          confirm: true,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        }),
      );
      if (intent.status !== 'succeeded') return { id: intent.id, succeeded: false, reason: intent.status };
      if (freedoms) freedoms.charged = true;
      return { id: intent.id, succeeded: true };
    },
  };
}
