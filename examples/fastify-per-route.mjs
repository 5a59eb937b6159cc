// Example: one Fastify route priced where it is declared (plain ESM JavaScript; `npm install credit402 fastify`).
// Until the packages are published, install credit402 (and credit402-stripe-emulator) from their tarballs: README.md, "Install in your project".
// Run it against the Stripe emulator (`npx credit402-stripe-emulator --port 12111` in another terminal):
//   STRIPE_API_BASE=http://127.0.0.1:12111 node fastify-per-route.mjs [port]
// Without STRIPE_API_BASE it talks to api.stripe.com with STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY.
// From a clone of this repository (packages not built): npx tsx --conditions=credit402-source examples/fastify-per-route.mjs
import Fastify from 'fastify';
import { createCredit402 } from 'credit402';
import { credit402Fastify, credit402FrameworkErrors } from 'credit402/fastify';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';
const gate = createCredit402({
  stripeSecretKey: process.env.STRIPE_SECRET_KEY ?? 'sk_test_example',
  stripePublishableKey: process.env.STRIPE_PUBLISHABLE_KEY ?? 'pk_test_example',
  serverSecret: process.env.CREDIT402_SERVER_SECRET ?? 'example-server-secret-change-me-0123456789', // at least 32 bytes in UTF-8
  store: new MemoryStore(), // or new SqliteStore({ path: 'credit402.db' }) from credit402/stores/sqlite
  stripeApi: process.env.STRIPE_API_BASE ? stripeApiBase(process.env.STRIPE_API_BASE) : undefined, // unset: api.stripe.com
});
const app = Fastify({ frameworkErrors: credit402FrameworkErrors }); // the gate's 400 for ambiguous targets
await app.register(credit402Fastify, { gate }); // awaited, before the routes
app.get('/api/weather', { config: { credit402: { amount: 500, description: 'Weather lookup' } } }, async (request) => ({
  temperature: 21,
  creditsRemaining: request.credit402?.creditsRemaining,
}));
app.get('/health', async () => ({ ok: true })); // no credit402 option: free

const url = await app.listen({ port: Number(process.argv[2] ?? process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(`listening on ${url}`);
