// Mutant target: derives the clientId from the PaymentMethod id instead of the card fingerprint (breaks CR-7.3, CR-10.3).
import { serveMutant, wrapProcessor } from './serve-mutant.ts';

await serveMutant('client-id-from-payment-method', (processor) =>
  wrapProcessor(processor, {
    // The PaymentMethod is still retrieved (the journal looks right), but its id stands in for the fingerprint.
    getCardFingerprint: async (paymentMethodId) => {
      await processor.getCardFingerprint(paymentMethodId);
      return paymentMethodId;
    },
  }),
);
