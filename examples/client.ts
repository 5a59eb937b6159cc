// Example (TypeScript): a client that pays a gated route once by card, then spends its balance (`npm install credit402`).
// Until the packages are published, install credit402 (and credit402-stripe-emulator) from their tarballs: README.md, "Install in your project".
// Run it against one of the example servers (or `npx credit402 serve`), in an ESM project ("type": "module", or name it client.mts):
//   npx tsx client.ts http://127.0.0.1:3000/api/weather
// From a clone of this repository: npx tsx --conditions=credit402-source examples/client.ts URL
// CREDIT402_PAYMENT_METHOD: the card's PaymentMethod id (default pm_card_visa, a Stripe test card the emulator knows).
import { createCredit402Fetch } from 'credit402/client';

const url = process.argv[2] ?? process.env.CREDIT402_URL ?? 'http://127.0.0.1:4020/api/weather';
const paymentMethodId = process.env.CREDIT402_PAYMENT_METHOD ?? 'pm_card_visa';

const paidFetch = createCredit402Fetch({
  onPaymentRequired: async ({ accepts }) => ({ paymentMethodId, topUpAmount: accepts.minTopUp }),
  maxTopUpPerSession: 200_000, // never tops up more than 20.00 in this session
});
for (const call of [1, 2]) {
  const response = await paidFetch(url); // the first call pays, the second spends from the balance
  console.log(JSON.stringify({ call, status: response.status, body: await response.json(), ...paidFetch.getLastPayment() }));
}
