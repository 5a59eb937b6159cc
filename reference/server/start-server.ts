// Starts the reference server: store, Stripe API (embedded emulator or a URL), gate and the chosen framework.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { startEmulator, type RunningEmulator } from '../../harness/emulator/index.ts';
import { createCredit402 } from '../credit402.ts';
import type { Gate } from '../gate/gate.ts';
import type { StripeApiBase } from '../processor/stripe-processor.ts';
import type { Store } from '../stores/store.ts';
import { buildStore } from './build-store.ts';
import { demoRoutes } from './demo-routes.ts';
import { buildExpressApp } from './express-app.ts';
import { buildFastifyApp } from './fastify-app.ts';
import type { ServerConfig } from './server-config.ts';

/** A running reference server. */
export interface RunningServer {
  url: string;
  gate: Gate;
  store: Store;
  /** The Stripe API base the server talks to (the emulator's URL when embedded). */
  stripeApiUrl: string;
  /** The in-process emulator, when the configuration asked for it. */
  emulator?: RunningEmulator;
  close(): Promise<void>;
}

function apiBase(url: string): StripeApiBase {
  const parsed = new URL(url);
  const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
  return { host: parsed.hostname, port: Number(parsed.port || (protocol === 'http' ? 80 : 443)), protocol };
}

async function listen(config: ServerConfig, gate: Gate): Promise<{ url: string; close(): Promise<void> }> {
  const routes = demoRoutes(gate.routes.keys(), config.freeRoutes);
  if (config.framework === 'fastify') {
    const app = await buildFastifyApp(gate, routes);
    await app.listen({ host: config.host, port: config.port });
    const { port } = app.server.address() as AddressInfo;
    return { url: `http://${config.host}:${port}`, close: () => app.close() };
  }
  const app = buildExpressApp(gate, routes);
  const server: Server = await new Promise((resolve, reject) => {
    const started = app.listen(config.port, config.host, (error?: Error) => (error ? reject(error) : resolve(started)));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Starts the reference server described by `config`; `store` replaces the configured one (tests, fault injection). */
export async function startReferenceServer(config: ServerConfig, injected: { store?: Store } = {}): Promise<RunningServer> {
  const emulator = config.stripeApi === 'embedded' ? await startEmulator({ port: 0 }) : undefined;
  const stripeApiUrl = emulator?.url ?? (config.stripeApi === 'stripe' ? 'https://api.stripe.com' : config.stripeApi);
  const store = injected.store ?? (await buildStore(config.store));
  try {
    const gate = createCredit402({
      stripeSecretKey: config.stripeSecretKey,
      stripePublishableKey: config.stripePublishableKey,
      serverSecret: config.serverSecret,
      store,
      routes: config.routes,
      ...(config.serviceName ? { serviceName: config.serviceName } : {}),
      ...(config.customerMetadataKey ? { customerMetadataKey: config.customerMetadataKey } : {}),
      ...(config.stripeTimeoutMs ? { stripeTimeoutMs: config.stripeTimeoutMs } : {}),
      ...(config.stripeApi === 'stripe' ? {} : { stripeApi: apiBase(stripeApiUrl) }),
    });
    const http = await listen(config, gate);
    return {
      url: http.url,
      gate,
      store,
      stripeApiUrl,
      ...(emulator ? { emulator } : {}),
      async close() {
        await http.close();
        await store.close();
        await emulator?.close();
      },
    };
  } catch (error) {
    await store.close();
    await emulator?.close();
    throw error;
  }
}
