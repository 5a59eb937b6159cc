// Example: a target for the conformance kit: the library on Fastify, configured from the kit's profile (plain ESM JavaScript; `npm install credit402 fastify`).
// The kit starts it with CREDIT402_PROFILE (the profile's path), PORT and STRIPE_API_BASE (its own Stripe emulator), then judges it:
//   npx credit402-conformance conformance --target-cmd "node examples/kit-target.mjs" --declare robustness=true
// From a clone of this repository (packages not built):
//   npm run conformance -- --target-cmd "npx tsx --conditions=credit402-source examples/kit-target.mjs" --declare robustness=true
// Your own server, in any language, does what this file does (harness/PROFILE.md is the contract): the profile's routes, keys and
// secret, a handler per route answering {"route": "<key>"}, and the handled route that counts handler runs.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { createCredit402, createCredit402Webhooks } from 'credit402';
import { credit402Fastify, credit402FrameworkErrors, credit402WebhookFastify } from 'credit402/fastify';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';

const profile = JSON.parse(readFileSync(process.env.CREDIT402_PROFILE, 'utf8'));
const store = new MemoryStore(); // a fresh store per run
const stripeApi = stripeApiBase(process.env.STRIPE_API_BASE ?? profile.stripeApi);
const gate = createCredit402({
  stripeSecretKey: profile.stripeSecretKey,
  stripePublishableKey: profile.stripePublishableKey,
  serverSecret: profile.serverSecret,
  serviceName: profile.serviceName, // the first words of PaymentIntent descriptions
  customerMetadataKey: profile.customerMetadataKey,
  store,
  stripeApi,
  routes: profile.routes, // the gate prices these route keys, patterns included (`GET /api/users/:id`)
});

// Handler runs (harness/PROFILE.md): every handler counts its runs by the request's `conformance-request-id` header,
// and the kit asks after each scenario: GET /_conformance/handled?ids=a,b answers {"a": 1, "b": 0}.
const runs = new Map();
function countRun(request) {
  const id = request.headers['conformance-request-id'];
  if (typeof id !== 'string') return;
  runs.set(id, (runs.get(id) ?? 0) + 1);
  if (runs.size > 10_000) runs.delete(runs.keys().next().value); // keep the last 10000 ids
}
function handledCounts(request) {
  const ids = String(request.query.ids ?? '').split(',').filter(Boolean);
  return Object.fromEntries(ids.map((id) => [id, runs.get(id) ?? 0]));
}

const app = Fastify({ frameworkErrors: credit402FrameworkErrors }); // the gate's 400 for ambiguous targets
await app.register(credit402Fastify, { gate }); // awaited, before the routes
// The robustness profile (spec §14, `--declare robustness=true`): Stripe's webhooks credit top-ups and take back refunds.
const webhooks = createCredit402Webhooks({ stripeSecretKey: profile.stripeSecretKey, stripeWebhookSecret: profile.stripeWebhookSecret, store, stripeApi });
await app.register(credit402WebhookFastify, { handler: webhooks, path: profile.webhookPath });

// One handler per route of the profile, gated or free: it answers {"route": "<key>"} (and a pattern's `params`).
for (const key of [...Object.keys(profile.routes), ...profile.freeRoutes]) {
  const [method, path] = key.split(' ');
  const isPattern = /\/(:|\*$)/.test(path); // a `:name` segment or a final `*` (CR-4.11)
  app.route({
    method,
    url: path.replace(/:(\w+)/g, ':$1(^.+$)'), // a named segment matches one non-empty segment, as in the gate
    handler: async (request, reply) => {
      countRun(request);
      const failing = profile.failingHandlers?.[key]; // handlers that fail on purpose: the price stays paid
      if (failing === 'throw') throw new Error(`the handler of ${key} throws`); // Fastify answers 500
      const body = { route: key, ...(isPattern ? { params: request.params } : {}) };
      return reply.code(failing === 'answer500' ? 500 : 200).send(body);
    },
  });
}

app.get(profile.handledPath, async (request) => handledCounts(request)); // free: the gate does not price it

const url = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 4020) });
console.log(`listening on ${url}`);
