// Example: Hono with per-route pricing, on Node through @hono/node-server (`npm install hono @hono/node-server`); the same app runs on Bun, Deno and Workers.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createCredit402 } from 'credit402';
import { credit402Hono } from 'credit402/hono';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';

const gate = createCredit402({
  stripeSecretKey: process.env.STRIPE_SECRET_KEY ?? 'sk_test_example',
  stripePublishableKey: process.env.STRIPE_PUBLISHABLE_KEY ?? 'pk_test_example',
  serverSecret: process.env.CREDIT402_SERVER_SECRET ?? 'example-server-secret-change-me-0123456789', // at least 32 bytes in UTF-8
  store: new MemoryStore(), // or new RedisStore({ url }) from credit402/stores/redis
  stripeApi: process.env.STRIPE_API_BASE ? stripeApiBase(process.env.STRIPE_API_BASE) : undefined, // unset: api.stripe.com
});

const credit402 = credit402Hono(gate);
const app = new Hono();
app.use(credit402.targetGuard()); // first: 400 to ambiguous request targets, whatever the route
app.get('/api/weather', credit402.route({ amount: 500, description: 'Weather lookup' }), (c) =>
  c.json({ temperature: 21, creditsRemaining: c.get('credit402')?.creditsRemaining }),
);
app.get('/health', (c) => c.json({ ok: true })); // no credit402.route: free

serve({ fetch: app.fetch, port: Number(process.argv[2] ?? process.env.PORT ?? 3000), hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
