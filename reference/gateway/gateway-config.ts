// Gateway configuration: the reference server's configuration (routes, keys, store, Stripe API, gate options) plus the upstream and the proxy's options.
import { readFileSync } from 'node:fs';
import { Credit402ConfigError } from '../config/config-error.ts';
import { definedFields } from '../config/defined-fields.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, loadServerConfig, type ServerConfig } from '../compose/engine-config.ts';
import { routeClaimingPath } from '../compose/route-path-claim.ts';
import { isMetricsToken, METRICS_TOKEN_RULE } from '../metrics/metrics-token.ts';
import { ROUTER_LOOSENESSES, type RouterLooseness } from '../gate/index.ts';

/** Default time the upstream has to send its answer's headers (and then between two body chunks), in ms. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * How the upstream's router matches request paths, which decides the near-misses of gated routes the gateway answers
 * 404 itself instead of forwarding them free (spec CR-15.5): `unknown` (the default) assumes it may have every
 * looseness of {@link ROUTER_LOOSENESSES}; `exact`, none (it matches as the gate, CR-4.2: every free request is
 * forwarded); a list names the ones it has (`["case-insensitive", "optional-trailing-slash"]`: Express's defaults).
 */
export type UpstreamMatching = 'unknown' | 'exact' | readonly RouterLooseness[];

/** Default of `upstreamMatching`: the gateway does not know how its upstream matches, and refuses every near-miss. */
export const DEFAULT_UPSTREAM_MATCHING = 'unknown';

/** Default path of the health endpoint. */
export const DEFAULT_HEALTH_PATH = '/healthz';

/** Default time a graceful shutdown waits for in-flight requests, in ms: the reference server's. */
export { DEFAULT_SHUTDOWN_TIMEOUT_MS };

/** What the gateway adds to the reference server's configuration. */
export interface GatewayOptions {
  /** Base URL of the upstream HTTP service (`http://127.0.0.1:8000`); requests keep their path and query, under the URL's path when it has one (`http://h/base` gets `/base/api/weather`). */
  upstream: string;
  /** How long the upstream has to answer (headers, then each body chunk) before the gateway answers 504, in ms. */
  upstreamTimeoutMs: number;
  /** Path of the health endpoint (never gated, never forwarded), `GET`/`HEAD`. */
  healthPath: string;
  /** Whether the client's `payment` header goes on to the upstream; default false (it is stripped). */
  forwardPaymentHeader: boolean;
  /** How long a graceful shutdown (SIGTERM) waits for in-flight requests before closing them, in ms. */
  shutdownTimeoutMs: number;
  /**
   * The bearer token the metrics endpoint (`metricsPath`) asks for (`Authorization: Bearer <token>`; 401 otherwise);
   * unset, the endpoint is open to whoever reaches the gateway. 16 to 512 characters of `A–Z a–z 0–9 - . _ ~ + /`,
   * then optional `=` (RFC 6750 b64token). From the JSON file or CREDIT402_METRICS_TOKEN, never a flag (a command
   * line is visible to other users of the machine).
   */
  metricsToken?: string;
  /**
   * How the upstream's router matches paths ({@link UpstreamMatching}); default `unknown`. A request the gate reads as
   * free whose path such a router could read as a gated route (a near-miss: `/API/weather`, `/api/weather/`,
   * `//api/weather`, `/api/weather;x=1` for `GET /api/weather`) is answered 404 by the gateway and not forwarded, so
   * that it cannot reach the gated handler unpaid; it is never priced as that route.
   */
  upstreamMatching?: UpstreamMatching;
}

/**
 * Everything the gateway needs to start. `framework` and `freeRoutes` of the server configuration are unused;
 * `metricsPath` serves the gateway's metrics (the gate's, and its upstream failures) there.
 */
export type GatewayConfig = ServerConfig & GatewayOptions;

/** Sources of the gateway configuration, each overriding the one before. */
export interface GatewayConfigSources {
  profilePath?: string;
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags (`--upstream`, `--port`, …). */
  overrides?: Partial<GatewayConfig>;
}

const fail = (message: string): never => {
  throw new Credit402ConfigError('ERR_GATEWAY_CONFIG', message);
};

function readGatewayFields(path: string | undefined): Record<string, unknown> {
  if (path === undefined) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return {}; // loadServerConfig reports an unreadable file with its own coded error.
  }
}

function checkMetricsToken(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isMetricsToken(value)) return fail(`metricsToken must be ${METRICS_TOKEN_RULE}`);
  return value;
}

const LOOSENESS_NAMES: readonly string[] = ROUTER_LOOSENESSES;

/** Checks `upstreamMatching` (absent: the default); throws ERR_GATEWAY_CONFIG naming what is wrong. */
export function checkUpstreamMatching(value: unknown): UpstreamMatching {
  if (value === undefined) return DEFAULT_UPSTREAM_MATCHING;
  if (value === 'unknown' || value === 'exact') return value;
  const expected = `"unknown", "exact" or a list of the upstream's loosenesses among ${ROUTER_LOOSENESSES.join(', ')}`;
  if (!Array.isArray(value)) return fail(`upstreamMatching must be ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
  const stranger = value.findIndex((name) => typeof name !== 'string' || !LOOSENESS_NAMES.includes(name));
  if (stranger !== -1) return fail(`upstreamMatching lists ${JSON.stringify(value[stranger]) ?? String(value[stranger])}, which is not one of ${ROUTER_LOOSENESSES.join(', ')}`);
  if (new Set(value).size !== value.length) return fail(`upstreamMatching lists a looseness twice: ${JSON.stringify(value)}`);
  return Object.freeze([...value]) as readonly RouterLooseness[];
}

/** The loosenesses `matching` says the upstream may have: every one for `unknown`, none for `exact`. */
export function upstreamLoosenesses(matching: UpstreamMatching): readonly RouterLooseness[] {
  if (matching === 'unknown') return ROUTER_LOOSENESSES;
  return matching === 'exact' ? [] : matching;
}

function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > 3_600_000) {
    return fail(`${name} must be an integer number of milliseconds from 1 to 3600000, got ${String(value)}`);
  }
  return value;
}

/** Checks the gateway's own fields; throws ERR_GATEWAY_CONFIG naming the field at fault. */
export function checkGatewayOptions(fields: Record<string, unknown>, routeKeys: readonly string[]): Omit<GatewayOptions, 'shutdownTimeoutMs'> {
  const { upstream, healthPath, forwardPaymentHeader } = fields;
  if (typeof upstream !== 'string' || upstream === '') return fail('upstream is required: the base URL of the upstream service (--upstream http://127.0.0.1:8000)');
  let url: URL;
  try {
    url = new URL(upstream);
  } catch {
    return fail(`upstream must be an http:// or https:// URL, got ${upstream}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return fail(`upstream must be an http:// or https:// URL without credentials, query or fragment, got ${upstream}`);
  }
  const health = healthPath ?? DEFAULT_HEALTH_PATH;
  if (typeof health !== 'string' || !/^\/[!$&-.0-;=@-Z_a-z~/]*$/.test(health)) return fail(`healthPath must be a path starting with /, without query or fragment, got ${String(health)}`);
  const taken = routeClaimingPath(routeKeys, health);
  if (taken !== undefined) fail(`healthPath ${health} collides with the gated route ${taken}`);
  if (forwardPaymentHeader !== undefined && typeof forwardPaymentHeader !== 'boolean') return fail(`forwardPaymentHeader must be true or false, got ${String(forwardPaymentHeader)}`);
  return {
    upstream: url.href.replace(/\/$/, ''),
    upstreamTimeoutMs: positiveMs('upstreamTimeoutMs', fields.upstreamTimeoutMs, DEFAULT_UPSTREAM_TIMEOUT_MS),
    healthPath: health,
    forwardPaymentHeader: forwardPaymentHeader === true,
    upstreamMatching: checkUpstreamMatching(fields.upstreamMatching),
    ...(fields.metricsToken === undefined ? {} : { metricsToken: checkMetricsToken(fields.metricsToken) }),
  };
}

/**
 * The gateway's rule for `metricsPath` beside the server's (path grammar, not a route key, not the webhook path,
 * checked by loadServerConfig): not the health endpoint's path either; throws ERR_GATEWAY_CONFIG.
 */
function checkMetricsBesideHealth(metricsPath: string | undefined, healthPath: string): void {
  if (metricsPath === healthPath) fail(`metricsPath ${metricsPath} collides with healthPath: the gateway answers both itself`);
}

/** A metrics token guards the metrics endpoint: without `metricsPath` it guards nothing, which is a mistake; throws ERR_GATEWAY_CONFIG. */
function checkTokenHasEndpoint(metricsToken: string | undefined, metricsPath: string | undefined): void {
  if (metricsToken !== undefined && metricsPath === undefined) fail('metricsToken is set but metricsPath is not: there is no metrics endpoint to guard');
}

/**
 * Loads and checks the gateway configuration: the reference server's sources (embedded defaults, profile, JSON file,
 * environment, flags) for routes, keys, store, gate options and `metricsPath`, and the gateway's fields (`upstream`,
 * `upstreamTimeoutMs`, `healthPath`, `forwardPaymentHeader`, `shutdownTimeoutMs`, `metricsToken`, `upstreamMatching`) from the JSON file,
 * CREDIT402_UPSTREAM, CREDIT402_METRICS_TOKEN and the flags.
 */
export function loadGatewayConfig(sources: GatewayConfigSources): GatewayConfig {
  // shutdownTimeoutMs is the reference server's option too: its loader reads and checks it, from the file and the overrides.
  const { upstream, upstreamTimeoutMs, healthPath, forwardPaymentHeader, metricsToken, upstreamMatching, ...serverOverrides } = sources.overrides ?? {};
  const server = loadServerConfig({ ...sources, overrides: serverOverrides });
  const env = sources.env ?? {};
  const fields: Record<string, unknown> = {
    ...readGatewayFields(sources.configPath),
    ...definedFields({ upstream: env.CREDIT402_UPSTREAM || undefined, metricsToken: env.CREDIT402_METRICS_TOKEN || undefined }),
    ...definedFields({ upstream, upstreamTimeoutMs, healthPath, forwardPaymentHeader, metricsToken, upstreamMatching }),
  };
  const options = checkGatewayOptions(fields, Object.keys(server.routes));
  checkMetricsBesideHealth(server.metricsPath, options.healthPath);
  checkTokenHasEndpoint(options.metricsToken, server.metricsPath);
  return { ...server, ...options, shutdownTimeoutMs: server.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS };
}
