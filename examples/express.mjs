// Example: one Express (4 or 5) route priced where it is declared (plain ESM JavaScript; `npm install credit402 express`).
// Until the packages are published, install credit402 (and credit402-stripe-emulator) from their tarballs: README.md, "Install in your project".
// Run it against the Stripe emulator (`npx credit402-stripe-emulator --port 12111` in another terminal):
//   STRIPE_API_BASE=http://127.0.0.1:12111 node express.mjs [port]
// Without STRIPE_API_BASE it talks to api.stripe.com with STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY.
// From a clone of this repository (packages not built): npx tsx --conditions=credit402-source examples/express.mjs
import express from 'express';
import { createCredit402 } from 'credit402';
import { credit402Express } from 'credit402/express';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';

const gate = createCredit402({
  stripeSecretKey: process.env.STRIPE_SECRET_KEY ?? 'sk_test_example',
  stripePublishableKey: process.env.STRIPE_PUBLISHABLE_KEY ?? 'pk_test_example',
  serverSecret: process.env.CREDIT402_SERVER_SECRET ?? 'example-server-secret-change-me-0123456789', // at least 32 bytes in UTF-8
  store: new MemoryStore(), // or new SqliteStore({ path: 'credit402.db' }) from credit402/stores/sqlite
  stripeApi: process.env.STRIPE_API_BASE ? stripeApiBase(process.env.STRIPE_API_BASE) : undefined, // unset: api.stripe.com
});

const credit402 = credit402Express(gate);
const app = express();
app.use(credit402.targetGuard()); // before the routes: 400 to ambiguous targets, targets routed as the gate reads them
app.get('/api/weather', credit402.route({ amount: 500, description: 'Weather lookup' }), (_req, res) => {
  res.json({ temperature: 21, creditsRemaining: res.locals.credit402.creditsRemaining });
});
app.get('/health', (_req, res) => res.json({ ok: true })); // no credit402.route: free

const server = app.listen(Number(process.argv[2] ?? process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
