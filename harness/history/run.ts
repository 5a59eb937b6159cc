// `credit402-conformance history`: starts the emulator and the target as `conformance` does, runs generated histories under fast-check, shrinks a failure and reports it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import type { HistoryOptions } from '../runner/history-options.ts';
import { runEmulatorPort, startRunEmulator, useRunningEmulator } from '../runner/emulator.ts';
import { emulatorAddress, PROFILE_PATH, readProfile } from '../runner/profile.ts';
import { startTarget } from '../runner/target.ts';
import { withTeardown } from '../runner/teardown.ts';
import { startRunUpstream } from '../runner/upstream.ts';
import { DEFAULT_MAX_STORE_WAIT_MS, loadProfile, type Profile } from '../world/parameters.ts';
import { executeHistory, type HistoryEnvironment, type HistoryResult } from './execute.ts';
import { minimize } from './minimize.ts';
import { historyArbitrary, type HistoryRoute, type Operation } from './operations.ts';
import { formatCounterexample, parseReplayScript, type ReplayScript, SCRIPT_FILE } from './script.ts';

const say = (line: string): void => void process.stderr.write(`history: ${line}\n`);

/** The profile's gated routes a history uses: the exact ones (patterns are the routing suite's), defaults applied. */
export function historyRoutes(profile: Profile): HistoryRoute[] {
  return Object.entries(profile.routes)
    .filter(([key]) => !/[:*]/.test(key))
    .map(([key, config]) => {
      const [method = 'GET', path = '/'] = key.split(' ');
      const failing = profile.failingHandlers?.[key];
      return { key, method, path, price: config.amount, currency: (config.currency ?? 'usd').toLowerCase(), minTopUp: config.minTopUp ?? 50_000, ...(failing ? { failing } : {}) };
    });
}

/** What a history run found, as written to history-summary.json. */
interface HistorySummary {
  target: string;
  seed: number;
  runs: number;
  passed: number;
  failed: number;
  durationMs: number;
  capabilities: string[];
  /** The answers the histories got, by status and code: what the generated operations reached. */
  answers: Record<string, number>;
  failure?: { ids: string[]; message: string; at: string; script: ReplayScript; shrinks: number; replay: string; transcript: string };
  error?: string;
}

/** The command line that replays a counterexample, as the user ran this one. */
function replayCommand(options: HistoryOptions, seed: number, path: string | undefined): string {
  const target = options.target.kind === 'url' ? `--target ${options.target.url}` : `--target-cmd ${JSON.stringify(options.target.command)}`;
  const declarations = Object.keys(options.declarations).length > 0 ? ` --declare-file <a file holding ${JSON.stringify(options.declarations)}>` : '';
  const fast = `history ${target}${declarations} --ops ${options.maxOps} --seed ${seed}${path ? ` --path ${path}` : ''}`;
  return `${fast}\n        or: history ${target}${declarations} --replay ${join(options.reportsDir, SCRIPT_FILE)}`;
}

/** Runs the histories against the chosen target; resolves to the exit code (0 = every history passed). */
export async function runHistories(options: HistoryOptions, profilePath: string = PROFILE_PATH): Promise<number> {
  const started = Date.now();
  const profile = loadProfile(profilePath);
  const replayed = options.replay === undefined ? undefined : parseReplayScript(readFileSync(options.replay, 'utf8'));
  const capabilities = options.declarations.capabilities ?? [];
  return withTeardown(say, async (teardown) => {
    const fixed = emulatorAddress(readProfile(profilePath));
    const emulator = options.emulatorUrl ? await useRunningEmulator(options.emulatorUrl) : await startRunEmulator(fixed.host, runEmulatorPort(options.target.kind, options.emulatorPort, fixed.port));
    teardown.add('the Stripe emulator', () => emulator.close());
    const reportsPath = resolve(options.reportsDir);
    mkdirSync(reportsPath, { recursive: true });
    const upstream = capabilities.includes('gateway') ? await startRunUpstream(profilePath, teardown) : undefined;
    const env = upstream ? { CREDIT402_UPSTREAM_URL: upstream.url } : undefined;
    const target = await startTarget(options.target, { emulatorUrl: emulator.url, profilePath, teardown, logFile: join(reportsPath, 'history-target.log'), ...(env ? { env } : {}) });
    say(`target: ${target.description} at ${target.url}; Stripe emulator at ${emulator.url}`);
    const environment: HistoryEnvironment = {
      targetUrl: target.url,
      emulatorUrl: emulator.url,
      routes: historyRoutes(profile),
      keys: { publishable: profile.stripePublishableKey, secret: profile.stripeSecretKey },
      serverSecret: profile.serverSecret,
      handledPath: profile.handledPath ?? '/_conformance/handled',
      storeFaults: capabilities.includes('storeFaults'),
      faultDelayMs: Math.max(1, Math.floor((profile.maxStoreWaitMs ?? DEFAULT_MAX_STORE_WAIT_MS) / 3)),
      requestTimeoutMs: 15_000,
    };
    const summary: HistorySummary = { target: target.description, seed: options.seed, runs: 0, passed: 0, failed: 0, durationMs: 0, capabilities, answers: {} };
    const tally = (result: HistoryResult): void => {
      for (const exchange of result.exchanges) {
        const key = exchange.status === undefined ? 'no answer' : `${exchange.status}${exchange.errorCode ? ` ${exchange.errorCode}` : exchange.challenge ? ' challenge' : ''}`;
        summary.answers[key] = (summary.answers[key] ?? 0) + 1;
      }
    };
    let failing: { script: ReplayScript; result: HistoryResult } | undefined;
    let kitError: unknown;
    if (replayed) {
      say(`replaying ${options.replay}: ${replayed.operations.length} operations`);
      const result = await executeHistory(replayed.operations, environment);
      tally(result);
      summary.runs = 1;
      if (result.violation) failing = { script: replayed, result };
    } else {
      say(`seed ${options.seed}${options.freshSeed ? ' (fresh: replay with --seed)' : ''}, up to ${options.runs} histories of at most ${options.maxOps} operations, ${options.seconds} s${environment.storeFaults ? ', store faults on' : ''}`);
      const deadline = started + options.seconds * 1000;
      const property = fc.asyncProperty(historyArbitrary({ routes: environment.routes, storeFaults: environment.storeFaults, paidPost: environment.routes.some((route) => route.method === 'POST'), maxOps: options.maxOps }), async (operations: Operation[]) => {
        if (kitError !== undefined || Date.now() > deadline) return true;
        let result: HistoryResult;
        try {
          result = await executeHistory(operations, environment);
        } catch (error) {
          kitError = error;
          return true;
        }
        tally(result);
        if (!result.violation) return true;
        failing = { script: { seed: options.seed, operations }, result };
        return false;
      });
      const details = await fc.check(property, { seed: options.seed, numRuns: options.runs, ...(options.path ? { path: options.path } : {}), verbose: 0 });
      summary.runs = details.numRuns;
      if (failing && details.failed) {
        failing.script = { seed: options.seed, path: details.counterexamplePath ?? undefined, operations: failing.script.operations } as ReplayScript;
        if (details.counterexamplePath === null) delete failing.script.path;
        summary.failure = { ids: [], message: '', at: '', script: failing.script, shrinks: details.numShrinks, replay: '', transcript: '' };
      }
    }
    if (failing?.result.violation && kitError === undefined) {
      // fast-check's shrinking keeps what a concurrent history needs only by chance: cut and prune it further, same requirements.
      const before = failing.script.operations.length;
      const failed = { ids: failing.result.violation.ids, failedOp: failing.result.violation.failedOp, result: failing.result };
      const runOne = async (operations: Operation[]) => {
        const result = await executeHistory(operations, environment);
        return { ids: result.violation?.ids, failedOp: result.violation?.failedOp, result };
      };
      const smallest = await minimize(failing.script.operations, failed, runOne, Date.now() + Math.max(10_000, options.seconds * 500));
      failing = { script: { ...failing.script, operations: smallest.operations }, result: smallest.outcome.result };
      if (smallest.operations.length < before) say(`pruned the shrunk history from ${before} to ${smallest.operations.length} operations`);
    }
    if (kitError !== undefined) {
      summary.error = kitError instanceof Error ? kitError.message : String(kitError);
      say(`the kit could not run a history: ${summary.error}`);
    }
    const exit = target.group?.exitStatus();
    if (exit) say(`the target ${exit} during the run; its last output:\n${target.group?.tail().join('\n')}`);
    summary.durationMs = Date.now() - started;
    if (failing?.result.violation) {
      const replay = replayCommand(options, options.seed, failing.script.path);
      writeFileSync(join(reportsPath, SCRIPT_FILE), `${JSON.stringify(failing.script, null, 2)}\n`);
      const transcript = formatCounterexample(failing.script, failing.result, replay);
      const { ids, message, at } = failing.result.violation;
      summary.failure = { ids, message, at, script: failing.script, shrinks: summary.failure?.shrinks ?? 0, replay, transcript };
      summary.failed = 1;
      summary.passed = Math.max(0, summary.runs - 1);
      process.stdout.write(`${transcript}\n\n`);
    } else {
      summary.passed = summary.runs;
    }
    writeFileSync(join(reportsPath, 'history-summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    if (options.freshSeed && summary.failed > 0) say(`the seed was fresh: ${options.seed}`);
    const answers = Object.entries(summary.answers).sort(([, a], [, b]) => b - a).map(([key, count]) => `${count}× ${key}`).join(', ');
    process.stdout.write(`histories: seed ${options.seed}, ${summary.runs} run in ${(summary.durationMs / 1000).toFixed(1)} s (answers: ${answers})${summary.failure ? `; failed: ${summary.failure.ids.join(' ')}` : ''}\n`);
    process.stdout.write(`${summary.passed} passed, ${summary.failed + (summary.error ? 1 : 0)} failed\n`);
    if (summary.error) return 2;
    return summary.failed > 0 ? 1 : 0;
  });
}
