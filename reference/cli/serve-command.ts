// `credit402 serve [--profile F] [--config F] [--store K] [--<store flag> N] [--framework F] [--gating G] [--port N] [--conformance-control] [--log-level L]`: the reference server's command line.
import { Credit402ConfigError } from '../config/config-error.ts';
import { closeOnSignal, startFailure } from './command-lifecycle.ts';
import { configSources, listenerOverrides } from './command-options.ts';
import { parseListenerArgs } from './listener-args.ts';
import { banner } from '../server/banner.ts';
import { fileNamesFramework, installedFramework } from '../server/installed-framework.ts';
import { FRAMEWORKS, loadServerConfig, type Framework, type Gating, type ServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer, type ServerInjections } from '../server/start-server.ts';
import type { LogLevel } from '../compose/server-log.ts';
import { storeDescriptors, storeFlags } from '../stores/descriptors.ts';

/** The usage text of `--store` (each store's line, registered ones too) and of the flags that set store variables. */
function storeUsage(): string {
  return [
    `  --store KIND       ${storeDescriptors().map((descriptor) => descriptor.usage).join('\n                     | ')}`,
    ...storeFlags().map((flag) => `  --${flag.name} N\n                     ${flag.usage}; or ${flag.variable}`),
  ].join('\n');
}

/** The store flags as parseArgs options: each takes a value. */
function storeFlagOptions(): Record<string, { type: 'string' }> {
  return Object.fromEntries(storeFlags().map((flag) => [flag.name, { type: 'string' }]));
}

/** `credit402 serve`'s usage text, with the store kinds known when it is asked for. */
const usage = (): string => `usage: credit402 serve [options]
  --profile FILE     load a conformance profile (credit402-conformance profile prints one)
  --config FILE      load a JSON configuration (any field of the embedded defaults, see the README)
${storeUsage()}
  --framework NAME   fastify | express | hono (on @hono/node-server) | http (plain node:http); default: fastify
                     if installed, else express
  --gating MODE      table (default: the gate's route table) | per-route (each gated route declared with the
                     framework's per-route form, its router decides what matched; fastify, express and hono)
  --port N           listening port (0 picks a free one)
  --host ADDR        listening address
  --stripe-api URL   embedded | stripe | http://host:port of a Stripe API (the emulator)
  --conformance-control
                     mount the conformance control routes (store faults, records): conformance runs only
  --metrics-path PATH
                     serve Prometheus metrics at PATH (GET, never gated; needs prom-client); off by default; open to
                     anyone who reaches the server unless metricsToken is set ("metricsToken" in --config or
                     CREDIT402_METRICS_TOKEN; no flag, a command line is visible to other users): then 401 without
                     "Authorization: Bearer <metricsToken>"
  --trust-proxy VALUE
                     proxies that may name the client's address in X-Forwarded-For (the address the payment rate
                     limit counts by): true | a hop count (1 behind one load balancer) | addresses and CIDR ranges,
                     comma-separated; or CREDIT402_TRUST_PROXY; default none (every client behind a proxy has its address)
  --log-level LEVEL  info (default: one line per failure, with a code) | debug (adds stack traces);
                     or CREDIT402_LOG_LEVEL`;

function overrides(values: Parameters<typeof listenerOverrides>[0] & { framework?: string; gating?: string; 'log-level'?: string }): Partial<ServerConfig> {
  const out: Partial<ServerConfig> = listenerOverrides(values);
  if (values.gating !== undefined) out.gating = values.gating as Gating;
  if (values['log-level'] !== undefined) out.logLevel = values['log-level'] as LogLevel;
  if (FRAMEWORKS.includes(values.framework as Framework)) out.framework = values.framework as Framework;
  else if (values.framework !== undefined) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `--framework must be one of ${FRAMEWORKS.join(', ')}`);
  return out;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Runs the reference server until SIGINT or SIGTERM; resolves to an exit code when it cannot start. */
export async function serveCommand(args: string[], injected: ServerInjections = {}): Promise<number | undefined> {
  try {
    return await serve(args, injected);
  } catch (error: unknown) {
    return startFailure('the reference server', usage(), error);
  }
}

async function serve(args: string[], injected: ServerInjections): Promise<number | undefined> {
  const values = parseListenerArgs(args, {
    framework: { type: 'string' },
    gating: { type: 'string' },
    'log-level': { type: 'string' },
    ...storeFlagOptions(),
  });
  if (values.help) {
    console.log(usage());
    return 0;
  }
  // The store flags act as their variables, so that the store's own settings from the environment still apply.
  const given = new Map<string, unknown>(Object.entries(values));
  const sources = configSources(values, Object.fromEntries(storeFlags().map((flag) => [flag.variable, stringOf(given.get(flag.name))])));
  const chosen = overrides(values);
  // No framework named (flag, CREDIT402_FRAMEWORK, --config or --profile file): the installed one, not the embedded default.
  if (chosen.framework === undefined && !sources.env.CREDIT402_FRAMEWORK && !fileNamesFramework(values.config) && !fileNamesFramework(values.profile)) {
    chosen.framework = await installedFramework();
    console.log(`credit402: framework ${chosen.framework} (${chosen.framework === 'fastify' ? 'installed' : 'fastify is not installed'}; --framework to choose)`);
  }
  const config = loadServerConfig({ ...sources, overrides: chosen });
  const server = await startReferenceServer(config, injected);
  console.log(banner(config, server));
  closeOnSignal(server);
  return undefined;
}
