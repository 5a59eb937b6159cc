// Test helper: a tiny Cloudflare Worker (module syntax) gating one route with credit402, and its Stripe webhook endpoint, for the workerd test: memory store, the Stripe API at the STRIPE_API_BASE binding (the emulator).
import { createCredit402, createCredit402Webhooks } from 'credit402';
import { credit402Handler, credit402Payment, credit402WebhookHandler, type FetchHandler } from 'credit402/fetch';
import { stripeApiBase } from 'credit402/stripe';
import { MemoryStore } from 'credit402/stores';

/** The Worker's bindings (`bindings` in its workerd configuration). */
interface Env {
  STRIPE_API_BASE?: string;
  /** The webhook endpoint's signing secret (whsec_…). */
  STRIPE_WEBHOOK_SECRET: string;
}

/** The Worker's app: the webhook endpoint, and behind the gate the weather, with the balance left of a paid request. */
function appOf(webhook: (request: Request) => Promise<Response>): FetchHandler<[]> {
  return (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/webhooks/stripe' && request.method === 'POST') return webhook(request);
    if (pathname === '/api/weather') return Response.json({ temperature: 21, creditsRemaining: credit402Payment(request)?.creditsRemaining });
    return Response.json({ ok: true });
  };
}

/** Built on the first request: a Worker's global scope has no bindings yet and may not make random values. A Worker module exports its handler only. */
let gated: FetchHandler<[]> | undefined;

/** The gate and the webhook engine on one memory store (one isolate's: enough for a test, never for production). */
function build(env: Env): FetchHandler<[]> {
  const store = new MemoryStore();
  const stripe = { stripeSecretKey: 'sk_test_workerd', stripeApi: env.STRIPE_API_BASE ? stripeApiBase(env.STRIPE_API_BASE) : undefined };
  const gate = createCredit402({
    ...stripe,
    stripePublishableKey: 'pk_test_workerd',
    serverSecret: 'workerd-test-server-secret-0123456789abcdef',
    store,
    routes: { 'GET /api/weather': { amount: 500, description: 'Weather lookup' } },
  });
  const webhook = credit402WebhookHandler(createCredit402Webhooks({ ...stripe, stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET, store, onError: () => {} }));
  return credit402Handler(gate, appOf(webhook));
}

export default {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    gated ??= build(env);
    return gated(request);
  },
};
