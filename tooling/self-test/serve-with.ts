// Self-test targets with their own Stripe client: the reference gate and webhook endpoint with chosen SDK options, optionally without the payment lock.
import { createGate } from 'credit402/gate';
import type { Processor } from 'credit402';
import { StripeProcessor, stripeApiBase, type StripeProcessorOptions } from 'credit402/stripe';
import { demoRoutes } from 'credit402/internal/server/demo-routes';
import { buildFastifyApp } from 'credit402/internal/server/fastify-app';
import { loadServerConfig } from 'credit402/server';
import { MemoryStore } from 'credit402/stores';
import { createWebhookHandler, DEFAULT_WEBHOOK_PATH, type WebhookHandler } from 'credit402/webhooks';

/** How the target differs from the reference. */
interface ServeWithOptions {
  /** Stripe client options beyond the profile's: SDK retries, customer search quoting. */
  stripe?: Pick<StripeProcessorOptions, 'maxNetworkRetries' | 'customerSearchQuote'>;
  /** Doctors the processor of the payment path (see `wrapProcessor`). */
  mutate?: (processor: Processor) => Processor;
  /** false: a store without locks, so concurrent first payments of one card are not serialised (breaks CR-14.7). */
  paymentLock?: boolean;
  /**
   * `ignore`: the webhook endpoint acknowledges every delivery (200) and acts on none, whatever the profile says, so
   * refunds, disputes and lost credits are never settled (breaks CR-14.2–CR-14.5). Default: the reference's endpoint.
   */
  webhook?: 'ignore';
}

/** A webhook engine that acknowledges every delivery, verified or not, and acts on none. */
const IGNORING_WEBHOOK: WebhookHandler = {
  handle: async () => ({ status: 200, body: { received: true, eventId: 'ignored', action: 'ignored' } }),
};

/**
 * Starts a conformance target like `serveMutant` (profile from CREDIT402_PROFILE, PORT, STRIPE_API_BASE, a memory
 * store, the reference's Fastify app), plus the webhook endpoint when the profile has a `stripeWebhookSecret` (one that acts on nothing with `webhook: 'ignore'`).
 */
export async function serveWith(name: string, options: ServeWithOptions): Promise<void> {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error(`${name}: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd`);
  const config = loadServerConfig({ profilePath, env: process.env });
  const stripe = new StripeProcessor({
    secretKey: config.stripeSecretKey,
    api: stripeApiBase(config.stripeApi),
    ...(config.customerMetadataKey ? { customerMetadataKey: config.customerMetadataKey } : {}),
    ...(config.stripeWebhookSecret ? { webhookSecret: config.stripeWebhookSecret } : {}),
    ...options.stripe,
  });
  const store = new MemoryStore();
  // Instance properties shadowing the lock methods: the gate sees a store without locks and runs payments unserialised.
  if (options.paymentLock === false) Object.defineProperties(store, { acquireLock: { value: undefined }, releaseLock: { value: undefined } });
  const gate = createGate({
    stripePublishableKey: config.stripePublishableKey,
    serverSecret: config.serverSecret,
    store,
    routes: config.routes,
    processor: options.mutate ? options.mutate(stripe) : stripe,
    ...(config.serviceName ? { serviceName: config.serviceName } : {}),
  });
  const path = config.webhookPath ?? DEFAULT_WEBHOOK_PATH;
  const webhook =
    options.webhook === 'ignore'
      ? { path, handler: IGNORING_WEBHOOK }
      : config.stripeWebhookSecret
        ? { path, handler: createWebhookHandler({ store, processor: stripe }) }
        : undefined;
  const app = await buildFastifyApp(gate, demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers), { webhook });
  await app.listen({ host: config.host, port: config.port });
  console.log(`${name} listening on http://${config.host}:${config.port} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void app.close().then(() => store.close()).finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
