// Example: an adapter for Koa, a framework credit402 ships none for, built on `gate.handle` and the adapter kit of `credit402/gate` (`npm install credit402 koa`).
// Run it against the Stripe emulator (`npx credit402-stripe-emulator --port 12111` in another terminal):
//   STRIPE_API_BASE=http://127.0.0.1:12111 node koa.mjs [port]
// From a clone of this repository (packages not built): npx tsx --conditions=credit402-source examples/koa.mjs
import Koa from 'koa';
import { createCredit402 } from 'credit402';
import { routerTarget } from 'credit402/gate';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';

/** Koa middleware: asks the gate about each request, then answers, passes, or serves and reports the final status. */
function credit402Koa(gate) {
  return async (ctx, next) => {
    const { req } = ctx;
    // ctx.ip: the client's address, which the payment rate limit counts by (behind a proxy: set app.proxy, proxyIpHeader)
    const decision = await gate.handle({ method: req.method, url: req.url, paymentHeader: req.headers.payment, clientAddress: ctx.ip, origin: req.headers.origin });
    if (decision.action === 'respond') { // a 402 challenge, a payment error, a 400 to an ambiguous target (CR-4.10), a 503
      ctx.status = decision.status;
      ctx.set(decision.headers);
      ctx.body = decision.body;
      return;
    }
    if (decision.action === 'pass') return next(); // not gated: nothing read, nothing charged
    ctx.set(decision.headers); // paid: the payment-response header
    ctx.state.credit402 = decision.payment;
    ctx.url = routerTarget(req.url) ?? ctx.url; // route as the gate read it: /api/%77eather is /api/weather
    ctx.res.once('finish', () => void decision.settle({ status: ctx.res.statusCode }));
    await next();
  };
}

const gate = createCredit402({
  stripeSecretKey: process.env.STRIPE_SECRET_KEY ?? 'sk_test_example',
  stripePublishableKey: process.env.STRIPE_PUBLISHABLE_KEY ?? 'pk_test_example',
  serverSecret: process.env.CREDIT402_SERVER_SECRET ?? 'example-server-secret-change-me-0123456789', // at least 32 bytes in UTF-8
  store: new MemoryStore(),
  stripeApi: process.env.STRIPE_API_BASE ? stripeApiBase(process.env.STRIPE_API_BASE) : undefined, // unset: api.stripe.com
  routes: { 'GET /api/weather': { amount: 500, description: 'Weather lookup' } }, // other routes are free
});

const app = new Koa();
app.use(credit402Koa(gate));
app.use((ctx) => {
  ctx.body = ctx.path === '/api/weather' ? { temperature: 21, creditsRemaining: ctx.state.credit402?.creditsRemaining } : { ok: true };
});
const server = app.listen(Number(process.argv[2] ?? process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
