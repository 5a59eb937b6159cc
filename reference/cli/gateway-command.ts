// `credit402 gateway --upstream URL [--config F] [--profile F] [--port N] [--host A] [--store K] [--stripe-api URL] [--metrics-path P] [--upstream-matching M]`: the gateway's command line.
import { closeOnSignal, startFailure } from './command-lifecycle.ts';
import { configSources, listenerOverrides } from './command-options.ts';
import { parseListenerArgs } from './listener-args.ts';
import { withOptionalPackage } from '../config/optional-package.ts';
import type { GatewayConfig } from '../gateway/gateway-config.ts';
import { storeKinds } from '../stores/descriptors.ts';

/** `credit402 gateway`'s usage text, with the store kinds known when it is asked for. */
const usage = (): string => `usage: credit402 gateway --upstream URL [options]
  --upstream URL     base URL of the service behind the gateway (or "upstream" in --config, or CREDIT402_UPSTREAM)
  --config FILE      JSON configuration: routes, keys, store, gate options of \`credit402 serve\`, and the gateway's
                     upstream, upstreamTimeoutMs (default 30000), healthPath (default /healthz),
                     forwardPaymentHeader (default false), shutdownTimeoutMs (default 10000),
                     upstreamMatching (default "unknown"),
                     metricsToken (or CREDIT402_METRICS_TOKEN; no flag, a command line is visible to
                     other users): the bearer token the metrics endpoint asks for, 16-512 characters
  --profile FILE     load a conformance profile (routes and keys)
  --store KIND       ${storeKinds().join(' | ')} (as \`credit402 serve\`)
  --port N           listening port (0 picks a free one)
  --host ADDR        listening address
  --stripe-api URL   stripe | http://host:port of a Stripe API (the emulator)
  --upstream-timeout-ms N
                     how long the upstream may take before the gateway answers 504
  --upstream-matching unknown|exact|LOOSENESS,…
                     how the upstream's router matches paths (or "upstreamMatching" in --config): a free request
                     that such a router could read as a gated route (/API/x, /x/, //x, /x;p=1 for GET /x) is answered
                     404, never forwarded. unknown (default): any of case-insensitive, optional-trailing-slash,
                     merged-slashes, matrix-parameters, percent-decoding, empty-named-segments; exact: none
                     (forward every free request); or the list the upstream has (Express by default:
                     case-insensitive,optional-trailing-slash)
  --metrics-path PATH
                     serve Prometheus metrics at PATH (or "metricsPath" in --config, or CREDIT402_METRICS_PATH): the
                     gate's, and upstream failures by status; GET, answered by the gateway itself, never gated or
                     forwarded; needs prom-client; off by default; open to anyone who reaches the gateway unless
                     metricsToken is set (then 401 without "Authorization: Bearer <metricsToken>")
  --trust-proxy VALUE
                     proxies in front of the gateway that may name the client's address in X-Forwarded-For (the
                     address the payment rate limit counts by): true | a hop count | addresses and CIDR ranges,
                     comma-separated; or CREDIT402_TRUST_PROXY, or "trustProxy" in --config; default none
  --conformance-control
                     mount the conformance control routes (store faults, records): conformance runs only

Gated routes are paid for and forwarded; everything else is forwarded untouched. SIGTERM finishes in-flight requests.`;

/** `--upstream-matching`: `unknown`, `exact`, or a comma-separated list of loosenesses, as the configuration writes it (unchecked). */
function upstreamMatchingFlag(value: string): string | string[] {
  return value === 'unknown' || value === 'exact' ? value : value.split(',').map((name) => name.trim()).filter((name) => name !== '');
}

function overrides(values: Parameters<typeof listenerOverrides>[0] & { upstream?: string; 'upstream-timeout-ms'?: string }): Partial<GatewayConfig> {
  const out: Partial<GatewayConfig> = listenerOverrides(values);
  if (values.upstream !== undefined) out.upstream = values.upstream;
  if (values['upstream-timeout-ms'] !== undefined) out.upstreamTimeoutMs = Number(values['upstream-timeout-ms']);
  return out;
}

/** Runs the gateway until SIGINT or SIGTERM (graceful shutdown); resolves to an exit code when it cannot start. */
export async function gatewayCommand(args: string[]): Promise<number | undefined> {
  try {
    return await gateway(args);
  } catch (error: unknown) {
    return startFailure('the gateway', usage(), error);
  }
}

async function gateway(args: string[]): Promise<number | undefined> {
  const values = parseListenerArgs(args, {
    upstream: { type: 'string' },
    'upstream-timeout-ms': { type: 'string' },
    'upstream-matching': { type: 'string' },
  });
  if (values.help) {
    console.log(usage());
    return 0;
  }
  const { checkUpstreamMatching, loadGatewayConfig } = await import('../gateway/gateway-config.ts');
  const flags = overrides(values);
  if (values['upstream-matching'] !== undefined) flags.upstreamMatching = checkUpstreamMatching(upstreamMatchingFlag(values['upstream-matching']));
  const config = loadGatewayConfig({ ...configSources(values), overrides: flags });
  const { startGateway } = await withOptionalPackage('fastify', 'the gateway', () => import('../gateway/start-gateway.ts'));
  const running = await startGateway(config);
  const routes = Object.entries(config.routes).map(([key, route]) => `  ${key}  ${route.amount} units ${route.currency ?? 'usd'}`);
  const metrics = running.metricsUrl === undefined ? [] : [`metrics: ${running.metricsUrl}`];
  console.log([`credit402 gateway listening on ${running.url}`, `upstream: ${config.upstream} (timeout ${config.upstreamTimeoutMs} ms, matching ${[config.upstreamMatching ?? 'unknown'].flat().join(',') || 'exact'})`, `health: ${running.url}${config.healthPath}`, ...metrics, 'gated routes:', ...routes].join('\n'));
  closeOnSignal(running);
  return undefined;
}
