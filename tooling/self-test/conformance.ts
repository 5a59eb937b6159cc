// `npm run conformance -- [--store K] [--framework F] [--gating G] [kit options]`: the conformance kit run against the reference server, as any target.
// With --target or --target-cmd the kit runs against that target instead; `--print-profile` prints the profile.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { KIT_COMMAND } from '../testing/kit.ts';
import { FRAMEWORKS, GATINGS, referenceTarget, RUNTIMES, STORES } from './reference-target.ts';

const say = (line: string): void => void process.stderr.write(`conformance: ${line}\n`);

function choice<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T {
  const found = allowed.find((item) => item === (value ?? allowed[0]));
  if (found === undefined) {
    say(`--${flag} must be one of ${allowed.join(', ')}; got "${value}"`);
    process.exit(2);
  }
  return found;
}

/** Runs the kit with `args`; resolves to its exit code. */
function runKit(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [node = process.execPath, ...rest] = KIT_COMMAND;
  const child = spawn(node, [...rest, ...args], { stdio: 'inherit', env: { CREDIT402_KIT_COMMAND: 'npm run conformance --', ...env } });
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** `argv` without the reference's own options (`--store K`, `--framework=F`, `--gating G`, `--runtime R`, …): what goes to the kit. */
function kitArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--store' || arg === '--framework' || arg === '--gating' || arg === '--runtime') i++;
    else if (!['--store=', '--framework=', '--gating=', '--runtime='].some((flag) => arg.startsWith(flag))) out.push(arg);
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: false,
    options: { store: { type: 'string' }, framework: { type: 'string' }, gating: { type: 'string' }, runtime: { type: 'string' }, target: { type: 'string' }, 'target-cmd': { type: 'string' }, 'print-profile': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values['print-profile']) return runKit(['profile'], process.env);
  const passed = kitArgs(argv);
  const external = values.target !== undefined || values['target-cmd'] !== undefined;
  if (external && (values.store !== undefined || values.framework !== undefined || values.gating !== undefined || values.runtime !== undefined)) {
    say('--store, --framework, --gating and --runtime configure the reference server and cannot be combined with --target or --target-cmd');
    return 2;
  }
  if (values.help) {
    process.stdout.write('Runs the kit against the reference server unless --target or --target-cmd is given.\n' +
      '  --store sqlite|redis|memory|postgres|redis-cluster   the reference server\'s store (sqlite: a fresh temporary file; redis: REDIS_URL, else a redis-server from PATH, else testcontainers;\n' +
      '                                redis-cluster: REDIS_CLUSTER_NODES, else three masters started from redis-server and redis-cli on PATH;\n' +
      '                                postgres: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres, in a fresh schema dropped afterwards)\n' +
      '  --framework fastify|express|express4|http|hono   the reference server\'s framework (express: Express 5; http: plain node:http;\n' +
      '                                hono: Hono on @hono/node-server)\n' +
      '  --gating table|per-route   how it gates: the gate\'s route table (default), or each gated route declared with the framework\'s\n' +
      '                                per-route form, its router deciding what matched (fastify, express, express4 and hono)\n' +
      '  --runtime node|bun   what runs the reference server: Node (default), or Bun from the bun devDependency (hono only, on\n' +
      '                                @hono/node-server over Bun\'s node:http; stores memory, redis and postgres: better-sqlite3 does not load in Bun)\n' +
      'It declares robustness=true and capabilities=storeFaults,records for the reference (so every level and capability is judged);\n' +
      '--level narrows that.\n\n');
  }
  if (external || values.help) return runKit(['conformance', ...passed], process.env);
  const store = choice('store', values.store as string | undefined, STORES);
  const framework = choice('framework', values.framework as string | undefined, FRAMEWORKS);
  const gating = choice('gating', values.gating as string | undefined, GATINGS);
  const runtime = choice('runtime', values.runtime as string | undefined, RUNTIMES);
  const target = await referenceTarget(store, framework, gating, runtime);
  say(`the reference server (${framework}${runtime === 'node' ? '' : ` under ${runtime}`}, ${gating} gating, store ${target.label}) is the target`);
  try {
    // The reference implements the robustness profile (spec §14) and the optional capabilities of its control routes
    // (harness/PROFILE.md, Capabilities; mounted by --conformance-control) and declares them, as any target would.
    const declared = ['--declare', 'robustness=true', '--declare', 'capabilities=storeFaults,records'];
    return await runKit(['conformance', '--target-cmd', target.command, ...declared, ...passed], target.env);
  } finally {
    await target.release();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    say((error as Error).message);
    process.exitCode = 2;
  },
);
