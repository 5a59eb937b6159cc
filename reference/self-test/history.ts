// `npx tsx reference/self-test/history.ts [--store LIST] [--refunds on,off] [--runs N] [--seconds S]`: the kit's generated histories against the reference server on each store, with refundOnHandlerError off and on (fixed seeds, then one fresh seed), one total line.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KIT_COMMAND } from '../testing/kit.ts';
import { referenceTarget, STORES } from './reference-target.ts';

type Store = (typeof STORES)[number];

/** The fixed seed of each store's run: failures found once are found again (with refunds on, the seed + 100). */
const FIXED_SEEDS: Readonly<Record<string, number>> = { memory: 36001, sqlite: 36002, redis: 36003, postgres: 36004, 'redis-cluster': 36005 };

/** A configuration file that turns the reference's refundOnHandlerError on, merged over the profile (`serve --config`). */
const REFUNDS_CONFIG = { refundOnHandlerError: true };

/** One history run of the plan: the store, whether failed handlers are refunded, the seed (undefined: a fresh one). */
interface Planned {
  store: Store;
  refunds: boolean;
  seed: number | undefined;
}

const say = (line: string): void => void process.stderr.write(`history: ${line}\n`);

/** Runs `history` against the reference as `planned` says; resolves to its counts and exit code. */
async function historyRun({ store, refunds, seed }: Planned, configDir: string, runs: number, seconds: number): Promise<{ passed: number; failed: number; code: number }> {
  const target = await referenceTarget(store, 'fastify', 'table');
  say(`the reference server (fastify, store ${target.label}, refundOnHandlerError ${refunds ? 'on' : 'off'}), ${seed === undefined ? 'a fresh seed' : `seed ${seed}`}`);
  try {
    const [node = process.execPath, ...kit] = KIT_COMMAND;
    const config = join(configDir, 'refunds.json');
    const command = refunds ? `${target.command} --config ${config}` : target.command;
    const args = [
      ...kit, 'history', '--target-cmd', command, '--declare', 'capabilities=storeFaults,records', ...(refunds ? ['--declare', 'refundOnHandlerError=true'] : []),
      '--emulator-port', '0', '--runs', String(runs), '--seconds', String(seconds),
      '--reports', join('reports', 'history', `${store}${refunds ? '-refunds' : ''}${seed === undefined ? '-fresh' : ''}`),
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
  const { values } = parseArgs({ args: argv, strict: true, options: { store: { type: 'string' }, refunds: { type: 'string' }, runs: { type: 'string' }, seconds: { type: 'string' } } });
  const stores = (values.store ?? 'memory,sqlite,redis,postgres').split(',').map((item) => item.trim());
  const unknown = stores.filter((store) => !(STORES as readonly string[]).includes(store));
  if (unknown.length > 0) {
    say(`--store takes a list of ${STORES.join(', ')}; got ${unknown.join(', ')}`);
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
