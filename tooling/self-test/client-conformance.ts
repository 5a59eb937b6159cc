// `npm run conformance:client -- [--client credit402|python] [--mutants [--repeat N]] [--all] [kit options]`: the kit's client mode run
// against credit402/client's driver (every level), the Python example's (wire), or each mutant client, which must fail exactly its IDs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_MUTANTS, type ClientMutant } from './client-mutants.ts';
import { pythonDriverCommand, runClientKit, TS_CLIENT_CLAIMS, tsDriverCommand, type ClientKitRun } from './client-kit-run.ts';

const say = (line: string): void => void process.stdout.write(`${line}\n`);

/** The script's own options, and what goes to the kit. */
interface Options {
  client: 'credit402' | 'python';
  mutants: boolean;
  all: boolean;
  repeat: number;
  reports: string;
  kitArgs: string[];
}

/** The kit's own command in this repository, for the options this script passes on and for judging another client. */
const KIT_IN_CLONE = 'npx tsx --conditions=credit402-source harness/cli.ts';

/** This script's usage: its own options; every other option goes to the kit's client mode. */
const USAGE = `usage: npm run conformance:client -- [--client credit402|python] [--mutants [--repeat N]] [--all] [--reports DIR] [kit options]

Judges this repository's clients with the kit's client mode (spec section 16), each through its own driver:
  (default)             credit402/client (tooling/self-test/client-driver.ts), claiming every level
  --client python       the Python example client (examples/python-client), claiming the wire level
  --mutants             each mutant client (tooling/self-test/client-mutants.ts), which must fail exactly its IDs
  --repeat N            run each mutant N times
  --all                 credit402/client, the Python client and every mutant; ends with "N passed, N failed"
  --reports DIR         where the reports go (default: reports)
  -h, --help            print this text and exit

Other options (--level, --declare, --tags, --server-a-port, --server-b-port) go to the kit's client mode:
${KIT_IN_CLONE} client --help.
To judge another client, run the kit itself with its driver:
  ${KIT_IN_CLONE} client --client-cmd "CMD"
(credit402-conformance client --client-cmd "CMD" where the kit is installed).`;

/** Thrown for options this script refuses; the message says what to run instead. */
class UsageError extends Error {}

function parse(argv: readonly string[]): Options {
  const options: Options = { client: 'credit402', mutants: false, all: false, repeat: 1, reports: 'reports', kitArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const [flag = '', inline] = (argv[i] ?? '').split(/=(.*)/s);
    const value = (): string => inline ?? argv[++i] ?? '';
    if (flag === '--client-cmd' || flag === 'client') {
      throw new UsageError(`${flag} is not an option of this script, which judges its own drivers; to judge another client run: ${KIT_IN_CLONE} client --client-cmd "CMD"`);
    }
    if (flag === '--mutants') options.mutants = true;
    else if (flag === '--all') options.all = true;
    else if (flag === '--client') {
      const client = value();
      if (client !== 'credit402' && client !== 'python') throw new Error(`--client takes credit402 or python, got "${client}"`);
      options.client = client;
    } else if (flag === '--repeat') {
      options.repeat = Number(value());
      if (!Number.isSafeInteger(options.repeat) || options.repeat < 1) throw new Error('--repeat takes a positive integer');
    } else if (flag === '--reports') options.reports = value();
    else options.kitArgs.push(argv[i] ?? '');
  }
  return options;
}

/** The kit's arguments for a client: credit402/client claims every level, the Python example the wire level. */
const claims = (client: Options['client']): string[] => (client === 'python' ? ['--level', 'wire'] : TS_CLIENT_CLAIMS);
const driver = (client: Options['client']): string => (client === 'python' ? pythonDriverCommand() : tsDriverCommand());
const sameIds = (a: readonly string[], b: readonly string[]): boolean => [...a].sort().join() === [...b].sort().join();

/** Why a mutant's run did not fail exactly its IDs: which scenario's check charged which ID. */
function explain(mutant: ClientMutant, run: ClientKitRun): string[] {
  const lines = [`    expected ${mutant.fails.join(', ')}; failed ${run.failedIds.join(', ') || 'nothing'} (kit exit ${run.code})`];
  for (const scenario of run.failedScenarios) {
    lines.push(`    ${scenario.failedIds.join(', ') || '(no ID)'} charged by "${scenario.name}" (${scenario.location})`);
    if (scenario.step) lines.push(`      step: ${scenario.step}`);
    if (scenario.message) lines.push(`      ${scenario.message.split('\n').slice(0, 6).join('\n      ')}`);
  }
  if (run.failedScenarios.length === 0) lines.push(...run.output.trimEnd().split('\n').slice(-25).map((line) => `    | ${line}`));
  return lines;
}

/** Runs every mutant `repeat` times; resolves to the passed and failed counts (a run passes when it fails exactly its IDs). */
async function runMutants(repeat: number, kitArgs: readonly string[]): Promise<{ passed: number; failed: number }> {
  const counts = { passed: 0, failed: 0 };
  for (const mutant of CLIENT_MUTANTS) {
    for (let round = 1; round <= repeat; round++) {
      const reports = mkdtempSync(join(tmpdir(), `credit402-client-mutant-${mutant.name}-`));
      const started = Date.now();
      const run = await runClientKit(tsDriverCommand(mutant.name), [...TS_CLIENT_CLAIMS, ...kitArgs], reports, true);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const exact = run.code !== 0 && sameIds(run.failedIds, mutant.fails);
      counts[exact ? 'passed' : 'failed']++;
      say(`mutant ${mutant.name}${repeat > 1 ? ` (run ${round} of ${repeat})` : ''}: ${exact ? 'ok' : 'WRONG'}, failed ${run.failedIds.join(', ') || 'nothing'} (${seconds} s)`);
      if (!exact) say(explain(mutant, run).join('\n'));
      if (exact) rmSync(reports, { recursive: true, force: true });
      else say(`    reports kept in ${reports}`);
    }
  }
  return counts;
}

/** One run of the kit against a correct client: passes when the kit exits 0. */
async function runClient(client: Options['client'], reports: string, kitArgs: readonly string[]): Promise<boolean> {
  say(`conformance:client: ${client === 'python' ? 'the Python example client (examples/python-client), level wire' : 'credit402/client, every level'}`);
  const started = Date.now();
  const run = await runClientKit(driver(client), [...claims(client), ...kitArgs], reports, false);
  say(`conformance:client: ${client}: ${run.code === 0 ? 'passed' : `failed (kit exit ${run.code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return run.code === 0;
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    say(USAGE);
    return 0;
  }
  const options = parse(argv);
  if (!options.all && !options.mutants) return (await runClient(options.client, options.reports, options.kitArgs)) ? 0 : 1;
  const counts = { passed: 0, failed: 0 };
  if (options.all) {
    for (const client of ['credit402', 'python'] as const) counts[(await runClient(client, join(options.reports, `client-${client}`), options.kitArgs)) ? 'passed' : 'failed']++;
  }
  const mutants = await runMutants(options.repeat, options.kitArgs);
  counts.passed += mutants.passed;
  counts.failed += mutants.failed;
  say(`\n${counts.passed} passed, ${counts.failed} failed`);
  return counts.failed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`conformance:client: ${(error as Error).message}${error instanceof UsageError ? ' (see --help)' : ''}\n`);
    process.exitCode = 2;
  },
);
