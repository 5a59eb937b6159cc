// The bounded search of generated histories that a robust conformance run makes after the suite, against the emulator and target it already started: the verdict for its reports.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { HistoryVerdict } from '../report/run-summary.ts';
import type { TargetChoice } from '../runner/cli-options.ts';
import type { Declarations } from '../world/declarations.ts';
import { loadProfile } from '../world/parameters.ts';
import type { HistoryResult } from './execute.ts';
import { describeOperation } from './operations.ts';
import { historyEnvironment, replayCommand } from './run.ts';
import { formatCounterexample, SCRIPT_FILE } from './script.ts';
import { searchHistories } from './search.ts';

/** The longest history of the bounded search, in operations (`history`'s default). */
export const BOUNDED_MAX_OPS = 20;
/** The most histories it runs: `history`'s default; the budget in seconds usually ends it first. */
export const BOUNDED_RUNS = 100;

/** What the bounded search needs from the run: the started target and emulator, what the target declares, the budget. */
export interface BoundedSearch {
  targetUrl: string;
  emulatorUrl: string;
  profilePath: string;
  /** The run's target, as given (for the replay command). */
  target: TargetChoice;
  declarations: Declarations;
  /** The run's reports directory, as given: the counterexample's replay script goes there. */
  reportsDir: string;
  seed: number;
  /** The budget: no history starts after it (shrinking a failure takes a few seconds more). */
  seconds: number;
  /** Where the counterexample is printed (default process.stdout). */
  stdout?: Writable;
}

/** The kit's command in a replay line: the installed command name (in a clone, `npx tsx --conditions=credit402-source harness/cli.ts`). */
const KIT_NAME = 'credit402-conformance';

/**
 * Runs one seeded search of generated histories within the budget against the running target, with the declared
 * capabilities (store faults only when `storeFaults` is declared), and resolves to its verdict: passed (the budget ran
 * out with no failure), failed (the shrunk counterexample, printed, and its replay script written to the reports
 * directory) or not run (the profile has no exact paid route, the kit could not run a history, or no paid call was
 * served), which fails nothing.
 */
export async function boundedHistorySearch(input: BoundedSearch): Promise<HistoryVerdict> {
  const started = Date.now();
  const base = { seed: input.seed, seconds: input.seconds, histories: 0 };
  const reports = resolve(input.reportsDir);
  rmSync(join(reports, SCRIPT_FILE), { force: true });
  const profile = loadProfile(input.profilePath);
  const environment = historyEnvironment(profile, input.declarations, input.targetUrl, input.emulatorUrl);
  if (environment.routes.length === 0) {
    return { ...base, outcome: 'not-run', durationMs: 0, reason: 'the profile has no paid route with an exact path for the histories to call' };
  }
  const notes = new Set<string>();
  if (!environment.storeFaults) notes.add('storeFaults not declared: no store faults were armed');
  const answers: Record<string, number> = {};
  let served = 0;
  const seen = (result: HistoryResult): void => {
    for (const note of result.notes) notes.add(note);
    for (const exchange of result.exchanges) {
      if (exchange.paymentResponse?.success === true) served++;
      const key = exchange.status === undefined ? 'no answer' : `${exchange.status}${exchange.errorCode ? ` ${exchange.errorCode}` : exchange.challenge ? ' challenge' : ''}`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
  };
  const search = await searchHistories(environment, { seed: input.seed, runs: BOUNDED_RUNS, maxOps: BOUNDED_MAX_OPS, seconds: input.seconds }, seen);
  const found = { ...base, histories: search.runs, durationMs: Date.now() - started, answers, ...(notes.size > 0 ? { notes: [...notes] } : {}) };
  if (search.error !== undefined) {
    const message = search.error instanceof Error ? search.error.message : String(search.error);
    return { ...found, outcome: 'not-run', reason: `the kit could not run a history: ${message}` };
  }
  const failing = search.failing;
  if (!failing?.result.violation) {
    // A target that serves no paid call gives the model nothing to judge (the suite's scenarios say why): no verdict.
    if (served === 0) return { ...found, outcome: 'not-run', reason: `no paid call of the ${search.runs} histories was served (a 2xx with a successful payment-response): nothing to judge` };
    return { ...found, outcome: 'passed' };
  }
  const options = { ...input, freshSeed: false, runs: BOUNDED_RUNS, maxOps: BOUNDED_MAX_OPS, repeat: 1 };
  const replay = replayCommand(options, input.seed, failing.script.path).replace(/(^|or: )history /g, `$1${KIT_NAME} history `);
  mkdirSync(reports, { recursive: true });
  writeFileSync(join(reports, SCRIPT_FILE), `${JSON.stringify(failing.script, null, 2)}\n`);
  const transcript = formatCounterexample(failing.script, failing.result, replay);
  (input.stdout ?? process.stdout).write(`\n${transcript}\n`);
  const { ids, message, at } = failing.result.violation;
  return {
    ...found,
    histories: failing.drawn,
    outcome: 'failed',
    failure: { ids, message, at, operations: failing.script.operations.map(describeOperation), replay, transcript },
  };
}
