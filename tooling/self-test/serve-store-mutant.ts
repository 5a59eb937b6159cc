// Serves the reference gate over a doctored memory store: a deliberately broken target whose bug is in its store.
import type { AddressInfo } from 'node:net';
import { createGate } from 'credit402/gate';
import { StripeProcessor, stripeApiBase } from 'credit402/stripe';
import { demoRoutes } from 'credit402/internal/server/demo-routes';
import { buildFastifyApp } from 'credit402/internal/server/fastify-app';
import { loadServerConfig, type ServerConfig } from 'credit402/server';
import { MemoryStore, type Store } from 'credit402/stores';

/** A running store mutant. */
export interface RunningStoreMutant {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the reference's Fastify app on `config.host:config.port` with the gate profile-gate.ts builds (routes, keys,
 * service name, metadata key, Stripe API of `config`), over `mutate` of a fresh memory store.
 */
export async function startStoreMutant(config: ServerConfig, mutate: (store: Store) => Store): Promise<RunningStoreMutant> {
  const memory = new MemoryStore();
  const processor = new StripeProcessor({
    secretKey: config.stripeSecretKey,
    api: stripeApiBase(config.stripeApi),
    ...(config.customerMetadataKey ? { customerMetadataKey: config.customerMetadataKey } : {}),
  });
  const gate = createGate({
    stripePublishableKey: config.stripePublishableKey,
    serverSecret: config.serverSecret,
    store: mutate(memory),
    routes: config.routes,
    processor,
    ...(config.serviceName ? { serviceName: config.serviceName } : {}),
  });
  const app = await buildFastifyApp(gate, demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers));
  await app.listen({ host: config.host, port: config.port });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://${config.host}:${port}`, close: () => app.close().then(() => memory.close()) };
}

/** Starts the mutant as a conformance target: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE. */
export async function serveStoreMutant(name: string, mutate: (store: Store) => Store): Promise<void> {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error(`mutant ${name}: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd`);
  const config = loadServerConfig({ profilePath, env: process.env });
  const mutant = await startStoreMutant(config, mutate);
  console.log(`mutant ${name} listening on ${mutant.url} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void mutant.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
