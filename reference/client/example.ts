// Example: pays for and calls the reference server's weather route with the credit402 fetch wrapper.
//
// Usage: start the reference server (`npm run reference`, http://127.0.0.1:4020 with its embedded Stripe
// emulator), then in another terminal:
//
//   npx tsx reference/client/example.ts [calls]
//
// Environment: CREDIT402_URL (default http://127.0.0.1:4020), CREDIT402_PAYMENT_METHOD (default pm_card_visa,
// a Stripe test PaymentMethod the emulator knows), CREDIT402_CLIENT_FILE (default .data/credit402-client.json,
// where the clientId is kept between runs: a second run spends the balance the first one bought).
import { createCredit402Fetch, Credit402PaymentError, Credit402SpendingLimitError, FileClientIdStorage } from './index.ts';

const baseUrl = process.env.CREDIT402_URL ?? 'http://127.0.0.1:4020';
const paymentMethodId = process.env.CREDIT402_PAYMENT_METHOD ?? 'pm_card_visa';
const calls = Number(process.argv[2] ?? 3);

const pay = createCredit402Fetch({
  storage: new FileClientIdStorage(process.env.CREDIT402_CLIENT_FILE ?? '.data/credit402-client.json'),
  maxTopUpPerPayment: 100_000, // 10.00 of the route's currency
  maxTopUpPerSession: 200_000,
  async onPaymentRequired({ accepts, reason, url }) {
    const price = `${accepts.amount} units (${accepts.amount / 10_000} ${accepts.currency})`;
    console.log(`${url} needs payment (${reason}): ${price} per call; topping up ${accepts.minTopUp} units`);
    return { paymentMethodId };
  },
});

try {
  for (let i = 1; i <= calls; i++) {
    const response = await pay(`${baseUrl}/api/weather`);
    const payment = pay.getLastPayment();
    console.log(`call ${i}: ${response.status}`, await response.json(), payment?.chargeId ? `charged ${payment.chargeId}` : 'from credits');
  }
  console.log(`balance left: ${pay.getLastPayment()?.creditsRemaining} units; topped up this run: ${pay.getSessionSpending()} units`);
} catch (error) {
  if (error instanceof Credit402PaymentError) console.error(`payment refused: ${error.code}: ${error.message}`);
  else if (error instanceof Credit402SpendingLimitError) console.error(error.message);
  else throw error;
  process.exitCode = 1;
}
