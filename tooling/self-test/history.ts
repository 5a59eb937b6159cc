// `npx tsx tooling/self-test/history.ts [--store LIST] [--refunds on,off] [--gateway LIST|none] [--runs N] [--seconds S]`: the kit's generated histories against the reference server on each store, with refundOnHandlerError off and on (fixed seeds, then one fresh seed), and against the reference gateway in front of the kit's upstream (fixed seeds), one total line.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KIT_COMMAND, targetCommand } from '../testing/kit.ts';
import { referenceTarget, STORES } from './reference-target.ts';

type Store = (typeof STORES)[number];

/** The fixed seed of each store's run: failures found once are found again (with refunds on, the seed + 100). */
const FIXED_SEEDS: Readonly<Record<string, number>> = { memory: 36001, sqlite: 36002, redis: 36003, postgres: 36004, 'redis-cluster': 36005 };

/** The fixed seed of the gateway's run on each store. */
const GATEWAY_SEEDS: Readonly<Record<string, number>> = { memory: 36201, sqlite: 36202, redis: 36203, postgres: 36204, 'redis-cluster': 36205 };

/** The stores the gateway's histories run on by default: one in memory, one real. */
const GATEWAY_STORES = 'memory,redis';

/** The gateway's histories: fewer than the server's, each upstream stall costing the gateway's timeout. */
const GATEWAY_RUNS = 12;

/** The gateway's upstream timeout: a stalled upstream is answered 504 after a second, which keeps the runs short. */
const GATEWAY_UPSTREAM_TIMEOUT_MS = 1000;

/** A configuration file that turns the reference's refundOnHandlerError on, merged over the profile (`serve --config`). */
const REFUNDS_CONFIG = { refundOnHandlerError: true };

/** One history run of the plan: the store, whether failed handlers are refunded, the seed (undefined: a fresh one), and whether the gateway is the target. */
interface Planned {
  store: Store;
  refunds: boolean;
  seed: number | undefined;
  gateway?: boolean;
}

const say = (line: string): void => void process.stderr.write(`history: ${line}\n`);

/**
 * The reference gateway on `store` (provisioned as the server's, CREDIT402_UPSTREAM unset) as a `history` target in
 * front of the kit's upstream, whose URL the kit hands it in CREDIT402_UPSTREAM_URL, with the store's control routes.
 */
async function gatewayTarget(store: Store): Promise<{ env: NodeJS.ProcessEnv; command: string; label: string; release: () => Promise<void> }> {
  const server = await referenceTarget(store, 'fastify', 'table');
  const env = { ...server.env };
  delete env.CREDIT402_UPSTREAM;
  const args = ['gateway', '--store', store === 'redis-cluster' ? 'redis' : store, '--host', '127.0.0.1', '--conformance-control', '--upstream-timeout-ms', String(GATEWAY_UPSTREAM_TIMEOUT_MS)];
  // The kit sets CREDIT402_PROFILE, PORT, STRIPE_API_BASE and CREDIT402_UPSTREAM_URL; the shell expands them.
  const command = `${targetCommand('reference/cli.ts', args)} --upstream "$CREDIT402_UPSTREAM_URL" --profile "$CREDIT402_PROFILE" --port "$PORT" --stripe-api "$STRIPE_API_BASE"`;
  return { env, command, label: server.label, release: server.release };
}

/** Runs `history` against the reference as `planned` says; resolves to its counts and exit code. */
async function historyRun({ store, refunds, seed, gateway }: Planned, configDir: string, runs: number, seconds: number): Promise<{ passed: number; failed: number; code: number }> {
  const target = gateway ? await gatewayTarget(store) : await referenceTarget(store, 'fastify', 'table');
  const what = gateway ? `the reference gateway (store ${target.label}) in front of the kit's upstream` : `the reference server (fastify, store ${target.label}, refundOnHandlerError ${refunds ? 'on' : 'off'})`;
  say(`${what}, ${seed === undefined ? 'a fresh seed' : `seed ${seed}`}`);
  try {
    const [node = process.execPath, ...kit] = KIT_COMMAND;
    const config = join(configDir, 'refunds.json');
    const command = refunds ? `${target.command} --config ${config}` : target.command;
    const capabilities = gateway ? 'capabilities=storeFaults,records,gateway' : 'capabilities=storeFaults,records';
    const args = [
      ...kit, 'history', '--target-cmd', command, '--declare', capabilities, ...(refunds ? ['--declare', 'refundOnHandlerError=true'] : []),
      '--emulator-port', '0', '--runs', String(gateway ? Math.min(runs, GATEWAY_RUNS) : runs), '--seconds', String(seconds),
      '--reports', join('reports', 'history', `${gateway ? 'gateway-' : ''}${store}${refunds ? '-refunds' : ''}${seed === undefined ? '-fresh' : ''}`),
      ...(seed === undefined ? [] : ['--seed', String(seed)]),
    ];
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { CREDIT402_KIT_COMMAND: 'npx credit402-conformance', ...target.env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
    const code = await new Promise<number>((resolve) => child.on('close', (exit) => resolve(exit ?? 1)));
    const counts = /^(\d+) passed, (\d+) failed\s*$/m.exec(output.trimEnd().split('\n').slice(-2).join('\n'));
    const passed = Number(counts?.[1] ?? 0);
    const failed = Number(counts?.[2] ?? 0) + (code !== 0 && Number(counts?.[2] ?? 0) === 0 ? 1 : 0);
    return { passed, failed, code };
  } finally {
    await target.release();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: { store: { type: 'string' }, refunds: { type: 'string' }, gateway: { type: 'string' }, runs: { type: 'string' }, seconds: { type: 'string' } } });
  const stores = (values.store ?? 'memory,sqlite,redis,postgres').split(',').map((item) => item.trim());
  const gatewayStores = values.gateway === 'none' ? [] : (values.gateway ?? GATEWAY_STORES).split(',').map((item) => item.trim());
  const unknown = [...stores, ...gatewayStores].filter((store) => !(STORES as readonly string[]).includes(store));
  if (unknown.length > 0) {
    say(`--store and --gateway take a list of ${STORES.join(', ')} (--gateway also none); got ${unknown.join(', ')}`);
    return 2;
  }
  const settings = (values.refunds ?? 'off,on').split(',').map((item) => item.trim());
  if (settings.length === 0 || settings.some((item) => item !== 'on' && item !== 'off')) {
    say(`--refunds takes on, off or both (on,off); got ${values.refunds}`);
    return 2;
  }
  const runs = Number(values.runs ?? 15);
  const seconds = Number(values.seconds ?? 30);
  let passed = 0;
  let failed = 0;
  const plan: Planned[] = stores.flatMap((store) => settings.map((setting): Planned => {
    const fixed = FIXED_SEEDS[store] as number;
    return { store: store as Store, refunds: setting === 'on', seed: setting === 'on' ? fixed + 100 : fixed };
  }));
  plan.push({ store: stores[0] as Store, refunds: settings.includes('on'), seed: undefined });
  for (const store of gatewayStores) plan.push({ store: store as Store, refunds: false, seed: GATEWAY_SEEDS[store] as number, gateway: true });
  const configDir = mkdtempSync(join(tmpdir(), 'credit402-history-'));
  writeFileSync(join(configDir, 'refunds.json'), `${JSON.stringify(REFUNDS_CONFIG)}\n`);
  try {
    for (const planned of plan) {
      const result = await historyRun(planned, configDir, runs, seconds);
      passed += result.passed;
      failed += result.failed;
    }
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    say((error as Error).message);
    process.exitCode = 2;
  },
);
