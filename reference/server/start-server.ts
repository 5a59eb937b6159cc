// Starts the reference server: store, Stripe API (embedded emulator or a URL), gate and the chosen framework, gating by table or per route.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { definedFields } from '../config/defined-fields.ts';
import { withOptionalPackage } from '../config/optional-package.ts';
import { validateRoutes, type Gate } from '../gate/index.ts';
import type { ReconcileSchedule } from '../reconcile/reconcile-schedule.ts';
import type { Store } from '../stores/store.ts';
import { assertLiveKeysReachStripe } from '../config/live-keys.ts';
import { assertProductionSafe } from '../config/production-guards.ts';
import { validateTrustProxy } from '../adapters/client-address.ts';
import type { StoreFaults } from '../conformance-control/store-faults.ts';
import { composeEngine, type Engine } from '../compose/engine.ts';
import { demoRoutes, type AppOptions } from './demo-routes.ts';
import type { ExpressModule } from './express-app.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, type ServerConfig } from '../compose/engine-config.ts';
import { withMetricsEndpoint } from '../adapters/node-http/node-http-metrics.ts';
import { createMetricsEndpoint, type MetricsEndpoint } from '../metrics/metrics-endpoint.ts';

/** The in-process Stripe emulator of the embedded mode (the credit402-stripe-emulator package). */
export interface EmbeddedEmulator {
  /** Base URL of its Stripe API. */
  url: string;
  /** Base URL of its control API, only when `emulatorControl` asked for it (it never hands out the webhook secret). */
  controlUrl?: string;
  close(): Promise<void>;
}

/** A running reference server. */
export interface RunningServer {
  url: string;
  gate: Gate;
  store: Store;
  /** The Stripe API base the server talks to (the emulator's URL when embedded). */
  stripeApiUrl: string;
  /** The in-process emulator, when the configuration asked for it. */
  emulator?: EmbeddedEmulator;
  /** URL of the webhook endpoint, when it is enabled. */
  webhookUrl?: string;
  /** URL of the metrics endpoint, when `metricsPath` is set. */
  metricsUrl?: string;
  /** The store faults the control routes arm, when `conformanceControl` is on; the gate and webhooks see `store` behind them. */
  storeFaults?: StoreFaults;
  /** The scheduled reconciliation, unless `reconcileEveryMs` is 0 (the default with a Stripe API URL). */
  reconciler?: ReconcileSchedule;
  close(): Promise<void>;
}

/** Listens with a node:http server (Express, plain node:http); closing it also drops idle keep-alive connections. */
async function listenNode(server: Server, config: ServerConfig): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Builds the configured framework's app on the engine, with the demo routes, and listens. */
async function listen(
  config: ServerConfig,
  { gate, webhook, control, log }: Engine,
  injected: ServerInjections,
  metrics: MetricsEndpoint | undefined,
): Promise<{ url: string; close(): Promise<void> }> {
  const routes = demoRoutes(Object.keys(config.routes), config.freeRoutes, config.failingHandlers);
  // The handled route is a conformance route: mounted with the control routes only.
  const options: AppOptions = { webhook, control, handled: control !== undefined, log, trustProxy: config.trustProxy };
  // Per-route gating: the routes carry their prices, declared with the framework's per-route form (the gate has no table).
  const prices = config.gating === 'per-route' ? config.routes : undefined;
  if (config.framework === 'fastify') {
    const { buildFastifyApp } = await withOptionalPackage('fastify', 'the Fastify server', () => import('./fastify-app.ts'));
    const app = await buildFastifyApp(gate, routes, { ...options, metrics, prices });
    await app.listen({ host: config.host, port: config.port });
    const { port } = app.server.address() as AddressInfo;
    return { url: `http://${config.host}:${port}`, close: () => app.close() };
  }
  if (config.framework === 'hono') {
    const neededFor = 'the Hono server (--framework hono)';
    const { buildHonoApp } = await withOptionalPackage('hono', neededFor, () => import('./hono-app.ts'));
    const { honoNodeServer } = await withOptionalPackage('@hono/node-server', neededFor, () => import('./hono-listener.ts'));
    return listenNode(honoNodeServer(buildHonoApp(gate, routes, { ...options, metrics, prices })), config);
  }
  if (config.framework === 'http') {
    const { buildHttpServer } = await import('./http-app.ts');
    return listenNode(buildHttpServer(gate, routes, { ...options, metrics }), config);
  }
  const express = injected.express as ExpressModule | undefined;
  const app = prices
    ? (await withOptionalPackage('express', 'the Express server (--framework express)', () => import('./express-per-route.ts'))).buildExpressPerRouteApp(gate, routes, prices, { ...options, express })
    : (await withOptionalPackage('express', 'the Express server (--framework express)', () => import('./express-app.ts'))).buildExpressApp(gate, routes, { ...options, express });
  return listenNode(createServer(withMetricsEndpoint(metrics, app)), config);
}

/** What a caller may hand the server instead of what the configuration names (tests, self-test targets). */
export interface ServerInjections {
  /** Replaces the configured store (tests, fault injection). */
  store?: Store;
  /**
   * The Express module (`import express from 'express'`) for `framework: "express"`; default: the installed `express`
   * (the self-test passes Express 4). Typed loosely so that the published types do not need `@types/express`.
   */
  express?: unknown;
}

/**
 * Starts the reference server described by `config`; `store` replaces the configured one (tests, fault
 * injection). The webhook endpoint is mounted when `stripeWebhookSecret` is set; with the embedded
 * emulator it is always mounted (with a generated secret unless one is set) and registered there, in-process.
 * The embedded emulator serves its control API only with `emulatorControl`. Live keys start only against Stripe,
 * and never with a public serverSecret (ERR_SERVER_SECRET). With `conformanceControl` (refused with live keys or
 * Stripe itself: ERR_CONFORMANCE_CONTROL), the gate and webhooks use the store behind {@link StoreFaults}, and the
 * conformance routes (store faults, records, the handled route) are mounted: for conformance runs only.
 */
export async function startReferenceServer(config: ServerConfig, injected: ServerInjections = {}): Promise<RunningServer> {
  assertLiveKeysReachStripe(config);
  assertProductionSafe(config);
  validateTrustProxy(config.trustProxy);
  // Only the framework, store driver and emulator in use are loaded.
  const emulatorModule = config.stripeApi === 'embedded'
    ? await withOptionalPackage('credit402-stripe-emulator', 'the embedded Stripe emulator (stripeApi "embedded", the default; or pass --stripe-api stripe|URL)', () => import('credit402-stripe-emulator'))
    : undefined;
  const emulator = emulatorModule ? await emulatorModule.startEmulator({ port: 0, controlApi: config.emulatorControl === true }) : undefined;
  const stripeApiUrl = emulator?.url ?? (config.stripeApi === 'stripe' ? 'https://api.stripe.com' : config.stripeApi);
  // With the embedded emulator the webhook endpoint is always mounted: with a secret made here unless one is configured.
  const generatedSecret = emulator && config.stripeWebhookSecret === undefined ? `whsec_${randomBytes(24).toString('hex')}` : undefined;
  try {
    const metrics = config.metricsPath === undefined ? undefined : await createMetricsEndpoint(config.metricsPath, config.metricsToken);
    // With per-route gating the framework's router decides what is gated: the gate keeps no table, whose keys are checked all the same.
    if (config.gating === 'per-route') validateRoutes(config.routes);
    const engine = await composeEngine(config, {
      ...definedFields({ store: injected.store, hooks: metrics?.hooks, stripeApiUrl: emulator?.url, webhookSecret: generatedSecret }),
      withoutRouteTable: config.gating === 'per-route',
      claimedRoutes: [...Object.keys(config.routes), ...config.freeRoutes],
    });
    const { gate, webhook, storeFaults, reconciler } = engine;
    const http = await listen(config, engine, injected, metrics).catch(async (error: unknown) => {
      await engine.close(0);
      throw error;
    });
    const webhookUrl = webhook ? `${http.url}${webhook.path}` : undefined;
    const secret = config.stripeWebhookSecret ?? generatedSecret;
    if (emulator && webhookUrl && secret) emulator.registerWebhook(webhookUrl, secret);
    return {
      url: http.url,
      gate,
      store: engine.store,
      stripeApiUrl,
      ...definedFields({
        emulator: emulator && { url: emulator.url, ...definedFields({ controlUrl: emulator.controlApi ? emulator.controlUrl : undefined }), close: () => emulator.close() },
        webhookUrl,
        metricsUrl: metrics && `${http.url}${metrics.path}`,
        storeFaults,
        reconciler,
      }),
      async close() {
        await http.close();
        await engine.close(config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
        await emulator?.close();
      },
    };
  } catch (error) {
    await emulator?.close();
    throw error;
  }
}