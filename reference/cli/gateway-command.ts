// `credit402 gateway --upstream URL [--config F] [--profile F] [--port N] [--host A] [--store K] [--stripe-api URL] [--metrics-path P]`: the gateway's command line.
import { parseArgs } from 'node:util';
import { closeOnSignal, startFailure } from './command-lifecycle.ts';
import { configSources, LISTENER_FLAGS, listenerOverrides, SOURCE_FLAGS } from './command-options.ts';
import { withOptionalPackage } from '../config/optional-package.ts';
import type { GatewayConfig } from '../gateway/gateway-config.ts';

const USAGE = `usage: credit402 gateway --upstream URL [options]
  --upstream URL     base URL of the service behind the gateway (or "upstream" in --config, or CREDIT402_UPSTREAM)
  --config FILE      JSON configuration: routes, keys, store, gate options of \`credit402 serve\`, and the gateway's
                     upstream, upstreamTimeoutMs (default 30000), healthPath (default /healthz),
                     forwardPaymentHeader (default false), shutdownTimeoutMs (default 10000),
                     metricsToken (or CREDIT402_METRICS_TOKEN; no flag, a command line is visible to
                     other users): the bearer token the metrics endpoint asks for, 16-512 characters
  --profile FILE     load a conformance profile (routes and keys)
  --store KIND       memory | sqlite | redis | postgres (as \`credit402 serve\`)
  --port N           listening port (0 picks a free one)
  --host ADDR        listening address
  --stripe-api URL   stripe | http://host:port of a Stripe API (the emulator)
  --upstream-timeout-ms N
                     how long the upstream may take before the gateway answers 504
  --metrics-path PATH
                     serve Prometheus metrics at PATH (or "metricsPath" in --config, or CREDIT402_METRICS_PATH): the
                     gate's, and upstream failures by status; GET, answered by the gateway itself, never gated or
                     forwarded; needs prom-client; off by default; open to anyone who reaches the gateway unless
                     metricsToken is set (then 401 without "Authorization: Bearer <metricsToken>")
  --conformance-control
                     mount the conformance control routes (store faults, records): conformance runs only

Gated routes are paid for and forwarded; everything else is forwarded untouched. SIGTERM finishes in-flight requests.`;

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
    return startFailure('the gateway', USAGE, error);
  }
}

async function gateway(args: string[]): Promise<number | undefined> {
  const { values } = parseArgs({
    args,
    options: {
      ...SOURCE_FLAGS,
      ...LISTENER_FLAGS,
      upstream: { type: 'string' },
      'upstream-timeout-ms': { type: 'string' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const { loadGatewayConfig } = await import('../gateway/gateway-config.ts');
  const config = loadGatewayConfig({ ...configSources(values), overrides: overrides(values) });
  const { startGateway } = await withOptionalPackage('fastify', 'the gateway', () => import('../gateway/start-gateway.ts'));
  const running = await startGateway(config);
  const routes = Object.entries(config.routes).map(([key, route]) => `  ${key}  ${route.amount} units ${route.currency ?? 'usd'}`);
  const metrics = running.metricsUrl === undefined ? [] : [`metrics: ${running.metricsUrl}`];
  console.log([`credit402 gateway listening on ${running.url}`, `upstream: ${config.upstream} (timeout ${config.upstreamTimeoutMs} ms)`, `health: ${running.url}${config.healthPath}`, ...metrics, 'gated routes:', ...routes].join('\n'));
  closeOnSignal(running);
  return undefined;
}
