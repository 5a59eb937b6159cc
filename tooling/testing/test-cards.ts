// Test helper: payment methods on the emulator for fresh cards, through the harness's card helpers.
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';

export { uniqueCardNumber };

/** Creates a card payment method at the Stripe API base, as Stripe.js does; resolves to its id. */
export async function createCardPaymentMethod(apiUrl: string, number = uniqueCardNumber()): Promise<string> {
  const keys = { publishable: 'pk_test_credit402tests', secret: 'sk_test_credit402tests' };
  return (await createPaymentMethod(apiUrl, keys, number)).paymentMethodId;
}
