// Example (TypeScript, vitest): the Stripe emulator in your own tests, in-process, with the gate pointed at it (`npm install -D credit402-stripe-emulator vitest`).
// From a clone of this repository: npx vitest run examples/emulator-in-tests.test.ts
import { createCredit402 } from 'credit402';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';
import { startEmulator } from 'credit402-stripe-emulator';
import { expect, it } from 'vitest';

it('charges a card at the emulator and serves the paid request', async () => {
  const stripe = await startEmulator(); // a Stripe API on a free port of 127.0.0.1, in this process
  const gate = createCredit402({
    stripeSecretKey: 'sk_test_example',
    stripePublishableKey: 'pk_test_example',
    serverSecret: 'example-server-secret-change-me-0123456789',
    store: new MemoryStore(),
    stripeApi: stripeApiBase(stripe.url), // the Stripe SDK talks to the emulator
    routes: { 'GET /api/weather': { amount: 500 } },
  });
  const payment = Buffer.from(JSON.stringify({ paymentMethodId: 'pm_card_visa' })).toString('base64');
  const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: payment });
  await stripe.close();
  expect(decision.action).toBe('serve'); // charged 5.00 usd at the emulator
  if (decision.action === 'serve') expect(decision.payment.creditsRemaining).toBe(49_500);
});
