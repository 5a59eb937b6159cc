// The one composition of the engine: the store, the gate on the Stripe processor, the webhook engine, the conformance control and the scheduled reconciliation.
import { createCredit402, createCredit402Webhooks, stripeProcessor, type Credit402Options } from '../credit402.ts';
import { Credit402ConfigError, type ConfigErrorCode } from '../config/config-error.ts';
import { ConformanceControl, controlPathTaken } from '../conformance-control/conformance-control.ts';
import { StoreFaults, withStoreFaults } from '../conformance-control/store-faults.ts';
import type { Gate, GateHooks } from '../gate/index.ts';
import { stripeApiBase, type StripeApiBase } from '../processor/stripe-processor.ts';
import { scheduleReconcile, type ReconcileSchedule } from '../reconcile/reconcile-schedule.ts';
import { trackInFlight } from './in-flight.ts';
import { createServerLog, type ServerLog } from './server-log.ts';
import type { Store } from '../stores/store.ts';
import { DEFAULT_WEBHOOK_PATH, type WebhookHandler } from '../webhooks/webhook-handler.ts';
import { buildStore } from './build-store.ts';
import { reconcileInterval, type ServerConfig } from './engine-config.ts';

/** What the engine reads of a configuration: the reference server's and the gateway's share it. */
export type EngineConfig = Omit<ServerConfig, 'host' | 'port' | 'framework' | 'gating' | 'freeRoutes' | 'failingHandlers' | 'metricsPath' | 'emulatorControl'>;

/** What a caller of {@link composeEngine} decides besides the configuration. */
export interface EngineOptions {
  /** Replaces the configured store (tests, fault injection); closed by {@link Engine.close} all the same. */
  store?: Store;
  /** The gate's lifecycle hooks (the metrics endpoint's). */
  hooks?: GateHooks;
  /** The Stripe API URL to use instead of `config.stripeApi` (the embedded emulator's); "stripe" means api.stripe.com. */
  stripeApiUrl?: string;
  /** The webhook signing secret to use when the configuration names none (one made for the embedded emulator). */
  webhookSecret?: string;
  /** Build the gate without its route table (per-route gating: the framework's router decides what is gated). */
  withoutRouteTable?: boolean;
  /** Every path the application serves (`<METHOD> <path>` keys): with `conformanceControl`, none may claim a control path. */
  claimedRoutes?: readonly string[];
  /** The configuration error code of the caller (`ERR_SERVER_CONFIG`, `ERR_GATEWAY_CONFIG`). */
  configErrorCode?: ConfigErrorCode;
}

/** The webhook endpoint: its path and the webhook engine answering it (the Stripe events of spec §14). */
export interface EngineWebhook {
  path: string;
  handler: WebhookHandler;
}

/** A composed engine: what the reference server and the gateway mount, and how to stop it. */
export interface Engine {
  /** The gate, counting the requests under way (for {@link Engine.close}). */
  gate: Gate;
  /** The store as built or injected (not behind the conformance store faults). */
  store: Store;
  /** The failure log: one line per failure with a code. */
  log: ServerLog;
  /** The webhook endpoint, when a signing secret is configured (or made for the embedded emulator). */
  webhook: EngineWebhook | undefined;
  /** The conformance control routes' state, with `conformanceControl` only (refused with live keys or Stripe itself). */
  control: ConformanceControl | undefined;
  /** The store faults the control arms; the gate and the webhook engine see the store behind them. */
  storeFaults: StoreFaults | undefined;
  /** The scheduled reconciliation, unless `reconcileEveryMs` is 0 (the default with a Stripe API URL). */
  reconciler: ReconcileSchedule | undefined;
  /** Stops the reconciliation, lets the requests under way finish (up to `drainMs`), then closes the store. */
  close(drainMs: number): Promise<void>;
}

/** The Stripe API base of the engine: none for api.stripe.com, else the URL's. */
function stripeApiOf(url: string): { stripeApi?: StripeApiBase } {
  return url === 'stripe' ? {} : { stripeApi: stripeApiBase(url) };
}

/** The options of the gate of `config`, on `store`. */
function gateOptions(config: EngineConfig, store: Store, stripeApi: { stripeApi?: StripeApiBase }, log: ServerLog): Credit402Options {
  return {
    stripeSecretKey: config.stripeSecretKey,
    stripePublishableKey: config.stripePublishableKey,
    serverSecret: config.serverSecret,
    store,
    routes: config.routes,
    serviceName: config.serviceName,
    customerMetadataKey: config.customerMetadataKey,
    stripeTimeoutMs: config.stripeTimeoutMs,
    lockWaitMs: config.lockWaitMs,
    lockTtlMs: config.lockTtlMs,
    storeTimeoutMs: config.storeTimeoutMs,
    requestIdTtlMs: config.requestIdTtlMs,
    refundOnHandlerError: config.refundOnHandlerError,
    newPaymentRateLimit: config.newPaymentRateLimit,
    cors: config.cors,
    onError: log.reporter('credit402'),
    ...stripeApi,
  };
}

/**
 * Composes the engine of `config`: opens the store (unless one is given), puts the conformance store faults in front
 * of it with `conformanceControl`, builds the gate and the webhook engine on the one Stripe processor configuration,
 * and schedules the reconciliation. Throws a Credit402ConfigError (closing the store) when the configuration cannot
 * work, e.g. a route on a control path.
 */
export async function composeEngine(config: EngineConfig, options: EngineOptions = {}): Promise<Engine> {
  const store = options.store ?? (await buildStore(config.store));
  try {
    const taken = config.conformanceControl ? controlPathTaken([...(options.claimedRoutes ?? Object.keys(config.routes))]) : undefined;
    if (taken) throw new Credit402ConfigError(options.configErrorCode ?? 'ERR_SERVER_CONFIG', `conformanceControl: a configured route already uses the control path ${taken}`);
    const log = createServerLog(config.logLevel ? { level: config.logLevel } : {});
    const storeFaults = config.conformanceControl ? new StoreFaults() : undefined;
    const engineStore = storeFaults ? withStoreFaults(store, storeFaults) : store;
    const stripeApi = stripeApiOf(options.stripeApiUrl ?? config.stripeApi);
    const { routes, ...gate } = gateOptions(config, engineStore, stripeApi, log);
    const { gate: tracked, drain } = trackInFlight(createCredit402({ ...gate, routes: options.withoutRouteTable ? {} : routes, hooks: options.hooks }));
    const secret = config.stripeWebhookSecret ?? options.webhookSecret;
    const webhook = secret === undefined ? undefined : {
      path: config.webhookPath ?? DEFAULT_WEBHOOK_PATH,
      handler: createCredit402Webhooks({
        stripeSecretKey: config.stripeSecretKey,
        stripeWebhookSecret: secret,
        store: engineStore,
        onError: log.reporter('credit402 webhook'),
        stripeTimeoutMs: config.stripeTimeoutMs,
        ...stripeApi,
      }),
    };
    const everyMs = reconcileInterval(config);
    const reconciler = everyMs === 0 ? undefined : scheduleReconcile({
      processor: stripeProcessor({ stripeSecretKey: config.stripeSecretKey, customerMetadataKey: config.customerMetadataKey, stripeTimeoutMs: config.stripeTimeoutMs, ...stripeApi }),
      store: engineStore,
      everyMs,
    });
    return {
      gate: tracked,
      store,
      log,
      webhook,
      control: storeFaults ? new ConformanceControl(store, storeFaults) : undefined,
      storeFaults,
      reconciler,
      async close(drainMs) {
        await reconciler?.stop();
        await drain(drainMs);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
