// Reference server configuration: embedded defaults, then a profile, a JSON file, environment and flags.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Credit402ConfigError } from '../config/config-error.ts';
import { assertLiveKeysReachStripe } from '../config/live-keys.ts';
import { assertProductionSafe } from '../config/production-guards.ts';
import type { RouteConfig } from '../protocol/types.ts';
import type { CorsOptions, NewPaymentRateLimit } from '../gate/index.ts';
import { DEFAULT_RECONCILE_EVERY_MS, MAX_RECONCILE_EVERY_MS } from '../reconcile/reconcile-schedule.ts';
import { routeClaimingPath } from './route-path-claim.ts';
import { checkStoreConfig, storeFromEnv, type StoreConfig } from './store-config.ts';
import { LOG_LEVELS, type LogLevel } from './server-log.ts';
import { parseTrustProxy, validateTrustProxy, type TrustProxy } from '../adapters/client-address.ts';
import { isMetricsToken, METRICS_TOKEN_RULE } from '../metrics/metrics-token.ts';

export type { StoreConfig } from './store-config.ts';

/**
 * How a demo handler of the reference server fails (the conformance profile's `failingHandlers`, harness/PROFILE.md): `answer500` answers
 * status 500 with a body naming its route, `throw` throws once it counted its run, so that the framework answers;
 * `answer500IfMarked` answers 500 only to a request whose `conformance-request-id` ends in {@link FAILING_RUN_MARK}
 * (the fault load's first attempts, whose refunds race their retries) and 200 to the others.
 */
export const HANDLER_FAILURES = ['answer500', 'throw', 'answer500IfMarked'] as const;

/** The end of a `conformance-request-id` that makes an `answer500IfMarked` handler fail. */
export const FAILING_RUN_MARK = '!fail';

/** One of {@link HANDLER_FAILURES}. */
export type HandlerFailure = (typeof HANDLER_FAILURES)[number];

/** The reference server's HTTP frameworks. */
export const FRAMEWORKS = ['fastify', 'express', 'hono', 'http'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/**
 * How the reference server gates its routes: `table` (the gate's `routes` table, matched by the Fastify plugin, the
 * Express middleware or the Hono middleware) or `per-route` (each gated route declared with the framework's per-route
 * form, whose router decides what matched; Fastify, Express and Hono).
 */
export const GATINGS = ['table', 'per-route'] as const;
export type Gating = (typeof GATINGS)[number];

/** Everything the reference server needs to start. */
export interface ServerConfig {
  host: string;
  port: number;
  /** The HTTP framework: `fastify`, `express` (the installed Express, 4 or 5), `hono` (on `@hono/node-server`) or `http` (plain node:http). */
  framework: Framework;
  /** `table` (default) or `per-route` (`--gating`, CREDIT402_GATING): see {@link GATINGS}. */
  gating?: Gating;
  routes: Record<string, RouteConfig>;
  /** Ungated demo routes, `<METHOD> <path>`. */
  freeRoutes: string[];
  /**
   * Demo routes (keys of `routes` or `freeRoutes`) whose handler fails: `answer500` answers 500 naming its route,
   * `throw` throws, answered 500 by the framework. The conformance profile's `failingHandlers` (CR-4.7, CR-13.27).
   */
  failingHandlers?: Record<string, HandlerFailure>;
  stripeSecretKey: string;
  stripePublishableKey: string;
  serverSecret: string;
  serviceName?: string;
  customerMetadataKey?: string;
  /** `embedded` (in-process emulator), `stripe` (api.stripe.com) or an API base URL such as http://127.0.0.1:12111. */
  stripeApi: string;
  stripeTimeoutMs?: number;
  store: StoreConfig;
  /** Signing secret of the webhook endpoint (`whsec_…`); the endpoint exists only when it is set (or the emulator is embedded). */
  stripeWebhookSecret?: string;
  /** Path of the webhook endpoint (POST); default `/webhooks/stripe`. */
  webhookPath?: string;
  /**
   * Path of the Prometheus metrics endpoint (GET; `--metrics-path`, CREDIT402_METRICS_PATH), never gated; off by
   * default. Needs the optional package prom-client.
   */
  metricsPath?: string;
  /**
   * The bearer token the metrics endpoint asks for (`Authorization: Bearer <token>`; 401 otherwise); unset, the
   * endpoint is open to whoever reaches the server. 16 to 512 characters of `A–Z a–z 0–9 - . _ ~ + /`, then optional
   * `=` (RFC 6750 b64token). From the JSON file or CREDIT402_METRICS_TOKEN, never a flag (a command line is visible
   * to other users of the machine); needs `metricsPath`.
   */
  metricsToken?: string;
  /** Gate option: how long a first payment waits for another payment of the same card, in ms. */
  lockWaitMs?: number;
  /** Gate option: lease of the per-client payment lock, in ms. */
  lockTtlMs?: number;
  /** Gate option: how long a store call may take before the request is answered 503, in ms (default 500). */
  storeTimeoutMs?: number;
  /** Gate option: how long a deduction is kept under its request id, in ms (default 300000, CR-6.9). */
  requestIdTtlMs?: number;
  /**
   * Graceful shutdown (SIGTERM, `close()`): how long the requests under way may take to finish before their
   * connections are closed, in ms (1 to 3600000); default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}.
   */
  shutdownTimeoutMs?: number;
  /** Gate option: give the price back when the handler answers 5xx or throws; default false. */
  refundOnHandlerError?: boolean;
  /**
   * Gate option: limit of new-payment attempts per client address and/or global (`{ perAddress?: { max, windowMs },
   * global?: { max, windowMs }, counts?: "attempts" | "failures" }`), answered 429 with Retry-After; per process, in
   * memory. Default: 60 failed new payments per address and 600 in all per 10 minutes, counting only failures on the
   * payer's side, the global window refusing only addresses that failed themselves (DEFAULT_NEW_PAYMENT_RATE_LIMIT);
   * `false` turns it off. The address follows `trustProxy`.
   */
  newPaymentRateLimit?: NewPaymentRateLimit | false;
  /** Gate option: the browser origins allowed to call the gated routes (CORS); off by default. */
  cors?: CorsOptions;
  /**
   * Which proxies in front of the server may name the client's address in X-Forwarded-For (`--trust-proxy`,
   * CREDIT402_TRUST_PROXY), with the meaning of Fastify's `trustProxy` and Express's `trust proxy`: `true`, a hop
   * count, or proxy addresses and CIDR ranges (a list or a comma-separated string). The client's address is what
   * `newPaymentRateLimit.perAddress` counts by. Default false: the socket's peer, so behind a proxy every client
   * shares the proxy's address (and its bucket).
   */
  trustProxy?: TrustProxy;
  /**
   * Interval of the scheduled reconciliation in ms (credits succeeded top-ups the store has not, as `credit402
   * reconcile` does; needed when no webhook reaches the server). `0` turns it off. Default 300000 (5 minutes) with
   * `stripeApi` "stripe" or "embedded", 0 with an API URL (conformance runs, tests).
   */
  reconcileEveryMs?: number;
  /**
   * Mounts the conformance control routes (store-fault injection, records; harness/PROFILE.md, Capabilities). For
   * conformance runs only, never in production: anyone could make the store fail. Default false.
   */
  conformanceControl?: boolean;
  /**
   * `info` (default): every failure (store, processor, webhook, a handler that throws) is one log line with a code;
   * `debug` adds its stack traces (`--log-level`, CREDIT402_LOG_LEVEL).
   */
  logLevel?: LogLevel;
  /**
   * With `stripeApi: "embedded"`: serve the emulator's control API (journal, faults, events; tests only). Default false:
   * the embedded emulator then answers nothing but the Stripe API, and never hands out the webhook secret.
   */
  emulatorControl?: boolean;
}

const DEFAULTS_PATH = fileURLToPath(new URL('./default-config.json', import.meta.url));

function readJson(path: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (error) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `cannot read configuration ${path}: ${(error as Error).message}`);
  }
}

function fromEnv(env: NodeJS.ProcessEnv, base: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (env.PORT) out.port = Number(env.PORT);
  if (env.HOST) out.host = env.HOST;
  if (env.CREDIT402_FRAMEWORK) out.framework = env.CREDIT402_FRAMEWORK;
  if (env.CREDIT402_GATING) out.gating = env.CREDIT402_GATING;
  if (env.STRIPE_SECRET_KEY) {
    out.stripeSecretKey = env.STRIPE_SECRET_KEY;
    out.stripeApi = 'stripe';
  }
  if (env.STRIPE_PUBLISHABLE_KEY) out.stripePublishableKey = env.STRIPE_PUBLISHABLE_KEY;
  if (env.STRIPE_API_BASE) out.stripeApi = env.STRIPE_API_BASE;
  if (env.CREDIT402_SERVER_SECRET) out.serverSecret = env.CREDIT402_SERVER_SECRET;
  if (env.STRIPE_WEBHOOK_SECRET) out.stripeWebhookSecret = env.STRIPE_WEBHOOK_SECRET;
  if (env.CREDIT402_CONFORMANCE_CONTROL !== undefined) out.conformanceControl = env.CREDIT402_CONFORMANCE_CONTROL;
  if (env.CREDIT402_METRICS_PATH) out.metricsPath = env.CREDIT402_METRICS_PATH;
  if (env.CREDIT402_METRICS_TOKEN) out.metricsToken = env.CREDIT402_METRICS_TOKEN;
  if (env.CREDIT402_LOG_LEVEL) out.logLevel = env.CREDIT402_LOG_LEVEL;
  if (env.CREDIT402_TRUST_PROXY) out.trustProxy = parseTrustProxy(env.CREDIT402_TRUST_PROXY);
  const store = storeFromEnv(env, base.store);
  if (store !== undefined) out.store = store;
  return out;
}

function check(config: Record<string, unknown>): ServerConfig {
  const { port, framework, stripeApi, store, freeRoutes } = config;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  if (!FRAMEWORKS.includes(framework as Framework)) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `framework must be ${FRAMEWORKS.join(', ')}, got ${String(framework)}`);
  }
  if (typeof stripeApi !== 'string' || !/^(embedded|stripe|https?:\/\/.+)$/.test(stripeApi)) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `stripeApi must be "embedded", "stripe" or an http(s) URL, got ${String(stripeApi)}`);
  }
  checkStoreConfig(store);
  const { routes } = config;
  if (typeof routes !== 'object' || routes === null || Object.keys(routes).length === 0) {
    throw new Credit402ConfigError('ERR_ROUTES', 'routes must map at least one "<METHOD> <path>" route key to its price (spec CR-2.10)');
  }
  if (!Array.isArray(freeRoutes) || !freeRoutes.every((route) => typeof route === 'string' && / \//.test(route))) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'freeRoutes must be a list of "<METHOD> <path>" strings');
  }
  if (config.emulatorControl !== undefined && typeof config.emulatorControl !== 'boolean') {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `emulatorControl must be true or false, got ${String(config.emulatorControl)}`);
  }
  assertLiveKeysReachStripe({ ...config, stripeApi });
  checkGating(config);
  checkFailingHandlers(config);
  checkWebhookPath(config);
  checkMetricsPath(config);
  checkMetricsToken(config);
  checkConformanceControl(config);
  assertProductionSafe({ ...config, stripeApi });
  checkReconcileEveryMs(config.reconcileEveryMs);
  checkLogLevel(config.logLevel);
  checkShutdownTimeoutMs(config.shutdownTimeoutMs);
  validateTrustProxy(config.trustProxy, 'trustProxy (--trust-proxy, CREDIT402_TRUST_PROXY)');
  return config as unknown as ServerConfig;
}

/** `failingHandlers`: an object mapping configured route keys to `answer500` or `throw`. */
function checkFailingHandlers(config: Record<string, unknown>): void {
  const failing = config.failingHandlers;
  if (failing === undefined) return;
  if (typeof failing !== 'object' || failing === null || Array.isArray(failing)) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `failingHandlers must map route keys to ${HANDLER_FAILURES.map((how) => `"${how}"`).join(', ')}`);
  }
  const keys = new Set(configuredRouteKeys(config));
  for (const [key, how] of Object.entries(failing)) {
    if (!keys.has(key)) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `failingHandlers names ${key}, which is not a key of routes or freeRoutes`);
    if (!HANDLER_FAILURES.includes(how as HandlerFailure)) {
      throw new Credit402ConfigError('ERR_SERVER_CONFIG', `failingHandlers["${key}"] must be ${HANDLER_FAILURES.join(' or ')}, got ${JSON.stringify(how)}`);
    }
  }
}

/** `gating`: `table` or `per-route`, and per-route only on a framework with a router of its own. */
function checkGating({ gating, framework }: Record<string, unknown>): void {
  if (gating === undefined) return;
  if (!GATINGS.includes(gating as Gating)) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `gating (--gating, CREDIT402_GATING) must be ${GATINGS.join(' or ')}, got ${String(gating)}`);
  }
  if (gating === 'per-route' && framework === 'http') {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'gating "per-route" needs a framework whose router declares the gated routes: fastify, express or hono (plain node:http has no router)');
  }
}

function checkReconcileEveryMs(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_RECONCILE_EVERY_MS) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `reconcileEveryMs must be 0 (off) or an integer number of milliseconds up to ${MAX_RECONCILE_EVERY_MS}, got ${String(value)}`);
  }
}

/** Default of `shutdownTimeoutMs`: 10 seconds for the requests under way to finish. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

function checkShutdownTimeoutMs(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > 3_600_000) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `shutdownTimeoutMs must be an integer number of milliseconds from 1 to 3600000, got ${String(value)}`);
  }
}

function checkLogLevel(value: unknown): void {
  if (value === undefined || LOG_LEVELS.includes(value as LogLevel)) return;
  throw new Credit402ConfigError('ERR_SERVER_CONFIG', `logLevel (--log-level, CREDIT402_LOG_LEVEL) must be ${LOG_LEVELS.join(' or ')}, got ${String(value)}`);
}

/** The interval of the scheduled reconciliation, 0 when off: the configured one, else 5 minutes against Stripe or the embedded emulator. */
export function reconcileInterval(config: Pick<ServerConfig, 'reconcileEveryMs' | 'stripeApi'>): number {
  if (config.reconcileEveryMs !== undefined) return config.reconcileEveryMs;
  return config.stripeApi === 'stripe' || config.stripeApi === 'embedded' ? DEFAULT_RECONCILE_EVERY_MS : 0;
}

function checkConformanceControl(config: Record<string, unknown>): void {
  const value = config.conformanceControl;
  if (value === undefined || typeof value === 'boolean') return;
  if (value === 'true' || value === '1') config.conformanceControl = true;
  else if (value === 'false' || value === '0' || value === '') config.conformanceControl = false;
  else throw new Credit402ConfigError('ERR_SERVER_CONFIG', `conformanceControl (CREDIT402_CONFORMANCE_CONTROL) must be true or false, got ${String(value)}`);
}

/** The keys of the configured paid and free routes (not validated yet: non-strings are left out). */
function configuredRouteKeys(config: Record<string, unknown>): string[] {
  const paid = Object.keys((config.routes ?? {}) as Record<string, unknown>);
  const free = Array.isArray(config.freeRoutes) ? config.freeRoutes.filter((key): key is string => typeof key === 'string') : [];
  return [...paid, ...free];
}

function checkWebhookPath(config: Record<string, unknown>): void {
  const path = config.webhookPath;
  if (path === undefined) return;
  if (typeof path !== 'string' || !/^\/[!"$-><@-~]*$/.test(path)) {
    throw new Credit402ConfigError('ERR_WEBHOOK_PATH', `webhookPath must be a path starting with /, without query or fragment, got ${String(path)}`);
  }
  const taken = routeClaimingPath(configuredRouteKeys(config), path, 'POST');
  if (taken !== undefined) {
    throw new Credit402ConfigError('ERR_WEBHOOK_PATH', `webhookPath ${path} collides with the route ${taken}`);
  }
}

function checkMetricsPath(config: Record<string, unknown>): void {
  const path = config.metricsPath;
  if (path === undefined) return;
  if (typeof path !== 'string' || !/^\/[!"$-><@-~]*$/.test(path)) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `metricsPath (--metrics-path, CREDIT402_METRICS_PATH) must be a path starting with /, without query or fragment, got ${String(path)}`);
  }
  const taken = routeClaimingPath(configuredRouteKeys(config), path);
  if (taken !== undefined || path === (config.webhookPath ?? '/webhooks/stripe')) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `metricsPath ${path} collides with ${taken === undefined ? 'the webhook path' : `the route ${taken}`}: the metrics endpoint is never gated`);
  }
}

/** `metricsToken`: a bearer token's form, and only beside `metricsPath` (without it the token would guard nothing). */
function checkMetricsToken({ metricsToken, metricsPath }: Record<string, unknown>): void {
  if (metricsToken === undefined) return;
  if (!isMetricsToken(metricsToken)) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `metricsToken (CREDIT402_METRICS_TOKEN) must be ${METRICS_TOKEN_RULE}`);
  }
  if (metricsPath === undefined) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'metricsToken (CREDIT402_METRICS_TOKEN) is set but metricsPath is not: there is no metrics endpoint to guard');
  }
}

/** Sources of the configuration, each overriding the one before. */
interface ConfigSources {
  /** A conformance profile (harness/conformance-profile.json). */
  profilePath?: string;
  /** A JSON configuration file. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags. */
  overrides?: Partial<ServerConfig>;
}

/** Loads and checks the server configuration; the gate validates routes and keys when it is built. */
export function loadServerConfig(sources: ConfigSources = {}): ServerConfig {
  let config = readJson(DEFAULTS_PATH);
  if (sources.profilePath) config = { ...config, ...readJson(sources.profilePath) };
  if (sources.configPath) config = { ...config, ...readJson(sources.configPath) };
  config = { ...config, ...fromEnv(sources.env ?? {}, config), ...sources.overrides };
  delete config.$comment;
  return check(config);
}
