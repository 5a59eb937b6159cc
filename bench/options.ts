// Command-line options of `npm run bench`: parsing, defaults, the --quick preset and the usage text.
import { parseArgs } from 'node:util';

/** The reference server's frameworks. */
const FRAMEWORKS = ['fastify', 'express'] as const;
/** The reference server's stores. */
export const STORES = ['memory', 'sqlite', 'redis', 'postgres'] as const;
/** A framework the bench runs. */
type Framework = (typeof FRAMEWORKS)[number];
/** A store the bench runs. */
export type StoreKind = (typeof STORES)[number];

/** One server configuration under test, named `<framework>-<store>`. */
export interface BenchConfig {
  name: string;
  framework: Framework;
  store: StoreKind;
}

/** Everything one bench run is asked to do. */
export interface BenchOptions {
  /** Seconds per measurement. */
  duration: number;
  /** Seconds of warm-up per route before the measurements. */
  warmup: number;
  connections: number;
  repetitions: number;
  configs: BenchConfig[];
  /** Seconds of sustained gated load for the RSS and store-size check; 0 skips it. */
  soak: number;
  /** The configuration the soak and the first-payment measurements run on. */
  soakConfig: BenchConfig;
  /** Number of first payments (one new card each); 0 skips that measurement. */
  payments: number;
  paymentConcurrency: number;
  /** Measure only the paid route (and the floor): no ungated leg, so a server's CPU profile holds paid requests only. */
  paidOnly: boolean;
  /** Run each configuration's floor in the same rounds (bench/floors/). */
  floors: boolean;
  /** Measure the gateway against its floor, @fastify/http-proxy, its upstream and the in-process plugin. */
  gateway: boolean;
  /** The store of the gateway and of the plugin it is compared with. */
  gatewayStore: 'memory' | 'sqlite';
  /** The reference/ folder of another checkout whose gateway is measured in the same rounds (before/after comparisons). */
  gatewayBaseline?: string;
  /** Free requests per round of the in-process Express measurement (bench/express-free-micro.ts); 0 skips it. */
  expressFree: number;
  /** Interleaved rounds of that measurement. */
  expressFreeRounds: number;
  /** Paid requests per round of the in-process stage breakdown on memory (bench/paid-stages.ts); 0 skips it. */
  stages: number;
  /** Interleaved rounds of that breakdown. */
  stagesRounds: number;
  /** Seconds the idle reference server of each store is watched for its CPU; 0 skips it. */
  idle: number;
  /** Reference servers (Fastify, memory) kept up, idle, during the hot-path rounds. */
  idleServers: number;
  /** Time a full conformance run. */
  conformance: boolean;
  /** JSON report path; default reports/bench-<ISO timestamp>.json. */
  out?: string;
  /** Directory for `node --cpu-prof` profiles of the server children. */
  cpuProfDir?: string;
  quick: boolean;
}

/** The help text of `npm run bench -- --help`. */
export const USAGE = `usage: npm run bench -- [options]

Measures the credit402 gate on loopback: ungated vs gated requests per second and latency for each
framework and store, each against its floor (bare Fastify or Express and one store operation per paid
request), the gateway against a plain node:http proxy making one Map deduction, an ungated @fastify/http-proxy,
its upstream and the in-process plugin, the first-payment path, the server's RSS and store size under
sustained load, and the wall time of a full conformance run. Prints a markdown table and writes
reports/bench-<timestamp>.json.

  --duration S          seconds per measurement (default 4)
  --warmup S            seconds of warm-up per route (default 1)
  --connections N       concurrent connections (default 50)
  --repetitions N       interleaved rounds (ungated, gated, floor; then reversed); the median is reported (default 3)
  --only A,B            configurations, e.g. fastify-memory,express-redis (default: all eight)
  --no-floors           do not run the floors
  --paid-only           no ungated leg: only the paid route and its floor (for --cpu-prof: profiles of paid requests only)
  --no-gateway          do not measure the gateway
  --gateway-store K     store of the gateway and of the plugin it is compared with: memory | sqlite (default memory)
  --gateway-baseline DIR  also measure the gateway of another checkout (DIR is its reference/ folder, with node_modules
                        reachable from it) in the same rounds, on a store of its own: before vs after
  --soak S              seconds of sustained gated load for the RSS and store-size check; 0 skips (default 60)
  --soak-config NAME    configuration of the soak and first-payment runs (default fastify-sqlite)
  --payments N          first payments with a new card each; 0 skips (default 200)
  --payment-concurrency N  concurrent first payments (default 10)
  --express-free N      free requests per round of the in-process Express measurement: bare Express vs each credit402
                        form and the reference apps, no sockets; 0 skips (default 2000, 21 rounds)
  --stages N            paid requests per round of the in-process stage breakdown on memory (engine alone, record,
                        payment-response header, engine in a bare Fastify route, adapter hooks); 0 skips (default 4000, 11 rounds)
  --idle S              seconds the idle reference server of each store is watched for its CPU (% of one core); 0 skips (default 20)
  --idle-servers N      keep N more reference servers (Fastify, memory) up and idle during the hot-path rounds (default 0)
  --no-conformance      do not time a full conformance run
  --out FILE            where the JSON report goes
  --cpu-prof DIR        run the server, floor and gateway children under node --cpu-prof, profiles in DIR/<child>/
                        with the requests each served (summarize with tsx bench/profile-summary.ts DIR/<child>)
  --quick               smoke check: 1 s measurements, 1 repetition, 20 payments, 4 s soak, 5 rounds of free Express requests,
                        3 rounds of 1000 for the stages, 5 s idle watch, no conformance
  -h, --help            print this text`;

/** A command-line mistake; the message is meant for the user. */
export class BenchUsageError extends Error {
  override name = 'BenchUsageError';
}

function numberOption(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < min) throw new BenchUsageError(`--${name} must be a number of at least ${min}, got "${value}"`);
  return number;
}

function integerOption(name: string, value: string | undefined, fallback: number, min: number): number {
  const number = numberOption(name, value, fallback, min);
  if (!Number.isInteger(number)) throw new BenchUsageError(`--${name} must be an integer, got "${value}"`);
  return number;
}

function gatewayStore(value: string | undefined): 'memory' | 'sqlite' {
  if (value === undefined || value === 'memory' || value === 'sqlite') return value ?? 'memory';
  throw new BenchUsageError(`--gateway-store must be memory or sqlite, got "${value}"`);
}

/** Every configuration, stores outermost so the table groups by store. */
function allConfigs(): BenchConfig[] {
  return STORES.flatMap((store) => FRAMEWORKS.map((framework) => ({ name: `${framework}-${store}`, framework, store })));
}

function pickConfig(name: string, known: BenchConfig[]): BenchConfig {
  const config = known.find((candidate) => candidate.name === name);
  if (config === undefined) throw new BenchUsageError(`unknown configuration "${name}"; known: ${known.map((c) => c.name).join(', ')}`);
  return config;
}

/** The `parseArgs` declarations of the options `names`, each of `type`. */
function optionsOf<const Type extends 'string' | 'boolean', const Name extends string>(type: Type, names: readonly Name[]): Record<Name, { type: Type }> {
  return Object.fromEntries(names.map((name) => [name, { type }])) as Record<Name, { type: Type }>;
}

/** Parses the bench's arguments; resolves `help` when the usage was asked for. */
export function parseBenchArgs(args: string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args,
    allowNegative: true,
    options: {
      ...optionsOf('string', [
        'duration', 'warmup', 'connections', 'repetitions', 'only', 'soak', 'soak-config', 'payments', 'payment-concurrency',
        'express-free', 'idle', 'stages', 'idle-servers', 'gateway-store', 'gateway-baseline', 'out', 'cpu-prof',
      ]),
      ...optionsOf('boolean', ['conformance', 'floors', 'paid-only', 'gateway', 'quick']),
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const known = allConfigs();
  const configs = values.only === undefined ? known : values.only.split(',').filter(Boolean).map((name) => pickConfig(name.trim(), known));
  if (configs.length === 0) throw new BenchUsageError('--only names no configuration');
  const soakName = values['soak-config'];
  const soakConfig = soakName !== undefined
    ? pickConfig(soakName, known)
    : (configs.find((config) => config.name === 'fastify-sqlite') ?? (configs[0] as BenchConfig));
  return {
    duration: numberOption('duration', values.duration, quick ? 1 : 4, 0.2),
    warmup: numberOption('warmup', values.warmup, quick ? 0.25 : 1, 0),
    connections: integerOption('connections', values.connections, 50, 1),
    repetitions: integerOption('repetitions', values.repetitions, quick ? 1 : 3, 1),
    configs,
    soak: numberOption('soak', values.soak, quick ? 4 : 60, 0),
    soakConfig,
    payments: integerOption('payments', values.payments, quick ? 20 : 200, 0),
    paymentConcurrency: integerOption('payment-concurrency', values['payment-concurrency'], 10, 1),
    paidOnly: values['paid-only'] ?? false,
    floors: values.floors ?? true,
    gateway: values.gateway ?? true,
    gatewayStore: gatewayStore(values['gateway-store']),
    ...(values['gateway-baseline'] === undefined ? {} : { gatewayBaseline: values['gateway-baseline'] }),
    expressFree: integerOption('express-free', values['express-free'], 2000, 0),
    expressFreeRounds: quick ? 5 : 21,
    stages: integerOption('stages', values.stages, quick ? 1000 : 4000, 0),
    stagesRounds: quick ? 3 : 11,
    idle: numberOption('idle', values.idle, quick ? 5 : 20, 0),
    idleServers: integerOption('idle-servers', values['idle-servers'], 0, 0),
    conformance: values.conformance ?? !quick,
    ...(values.out === undefined ? {} : { out: values.out }),
    ...(values['cpu-prof'] === undefined ? {} : { cpuProfDir: values['cpu-prof'] }),
    quick,
  };
}
