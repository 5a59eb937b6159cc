// `credit402 serve [--profile F] [--config F] [--store K] [--framework F] [--gating G] [--port N] [--conformance-control] [--log-level L]`: the reference server's command line.
import { parseArgs } from 'node:util';
import { Credit402ConfigError } from '../config/config-error.ts';
import { banner } from './banner.ts';
import { FRAMEWORKS, loadServerConfig, type Framework, type Gating, type ServerConfig } from './server-config.ts';
import { startReferenceServer, type ServerInjections } from './start-server.ts';
import type { LogLevel } from './server-log.ts';

const USAGE = `usage: credit402 serve [options]
  --profile FILE     load a conformance profile (credit402-conformance profile prints one)
  --config FILE      load a JSON configuration (any field of the embedded defaults, see the README)
  --store KIND       memory | sqlite | redis (REDIS_URL, default redis://127.0.0.1:6379; a Redis Cluster: CREDIT402_REDIS_CLUSTER=host:port,…)
                     | postgres (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; CREDIT402_PG_SCHEMA)
  --framework NAME   fastify | express | http (plain node:http)
  --gating MODE      table (default: the gate's route table) | per-route (each gated route declared with the
                     framework's per-route form, its router decides what matched; fastify and express)
  --port N           listening port (0 picks a free one)
  --host ADDR        listening address
  --stripe-api URL   embedded | stripe | http://host:port of a Stripe API (the emulator)
  --conformance-control
                     mount the conformance control routes (store faults, records): conformance runs only
  --metrics-path PATH
                     serve Prometheus metrics at PATH (GET, never gated; needs prom-client); off by default
  --log-level LEVEL  info (default: one line per failure, with a code) | debug (adds stack traces);
                     or CREDIT402_LOG_LEVEL`;

function overrides(values: Record<string, string | boolean | undefined>): Partial<ServerConfig> {
  const out: Partial<ServerConfig> = {};
  if (typeof values.port === 'string') out.port = Number(values.port);
  if (typeof values.host === 'string') out.host = values.host;
  if (typeof values['stripe-api'] === 'string') out.stripeApi = values['stripe-api'];
  if (values['conformance-control'] === true) out.conformanceControl = true;
  if (typeof values['metrics-path'] === 'string') out.metricsPath = values['metrics-path'];
  if (typeof values.gating === 'string') out.gating = values.gating as Gating;
  if (typeof values['log-level'] === 'string') out.logLevel = values['log-level'] as LogLevel;
  if (FRAMEWORKS.includes(values.framework as Framework)) out.framework = values.framework as Framework;
  else if (values.framework !== undefined) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `--framework must be one of ${FRAMEWORKS.join(', ')}`);
  return out;
}

/** Runs the reference server until SIGINT or SIGTERM; resolves to an exit code when it cannot start. */
export async function serveCommand(args: string[], injected: ServerInjections = {}): Promise<number | undefined> {
  try {
    return await serve(args, injected);
  } catch (error: unknown) {
    if (error instanceof Credit402ConfigError) {
      console.error(`credit402: configuration error ${error.message}\n\n${USAGE}`);
      return 2;
    }
    console.error('credit402: the reference server could not start:', error);
    return 1;
  }
}

async function serve(args: string[], injected: ServerInjections): Promise<number | undefined> {
  const { values } = parseArgs({
    args,
    options: {
      profile: { type: 'string' },
      config: { type: 'string' },
      store: { type: 'string' },
      framework: { type: 'string' },
      gating: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'stripe-api': { type: 'string' },
      'conformance-control': { type: 'boolean' },
      'metrics-path': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const env = { ...process.env, ...(values.store ? { CREDIT402_STORE: values.store } : {}) };
  const config = loadServerConfig({
    ...(values.profile ? { profilePath: values.profile } : {}),
    ...(values.config ? { configPath: values.config } : {}),
    env,
    overrides: overrides(values),
  });
  const server = await startReferenceServer(config, injected);
  console.log(banner(config, server));
  const stop = (): void => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return undefined;
}
