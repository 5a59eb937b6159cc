// Example: a plain node:http server gated by a route table (plain ESM JavaScript; `npm install credit402`).
// Until the packages are published, install credit402 (and credit402-stripe-emulator) from their tarballs: README.md, "Install in your project".
// Run it against the Stripe emulator (`npx credit402-stripe-emulator --port 12111` in another terminal):
//   STRIPE_API_BASE=http://127.0.0.1:12111 node node-http.mjs [port]
// Without STRIPE_API_BASE it talks to api.stripe.com with STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY.
// From a clone of this repository (packages not built): npx tsx --conditions=credit402-source examples/node-http.mjs
import { createServer } from 'node:http';
import { createCredit402 } from 'credit402';
import { applyCredit402 } from 'credit402/node-http';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';

const gate = createCredit402({
  stripeSecretKey: process.env.STRIPE_SECRET_KEY ?? 'sk_test_example',
  stripePublishableKey: process.env.STRIPE_PUBLISHABLE_KEY ?? 'pk_test_example',
  serverSecret: process.env.CREDIT402_SERVER_SECRET ?? 'example-server-secret-change-me-0123456789', // at least 32 bytes in UTF-8
  store: new MemoryStore(),
  stripeApi: process.env.STRIPE_API_BASE ? stripeApiBase(process.env.STRIPE_API_BASE) : undefined, // unset: api.stripe.com
  routes: { 'GET /api/weather': { amount: 500, description: 'Weather lookup' } }, // `<METHOD> <path>`; other routes are free
});

const server = createServer((req, res) => {
  applyCredit402(gate, req, res) // answers 402s and refusals itself; a paid request gets its payment-response header
    .then((applied) => {
      if (applied.answered) return;
      const path = (req.url ?? '/').split('?')[0];
      const body = path === '/api/weather' ? { temperature: 21, creditsRemaining: applied.payment?.creditsRemaining } : { ok: true };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    })
    .catch(() => res.writeHead(500).end());
});
server.listen(Number(process.argv[2] ?? process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
