// `credit402-conformance history`: starts the emulator and the target as `conformance` does, runs seeded searches of generated histories (search.ts), and reports each failure shrunk.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HistoryOptions } from '../runner/history-options.ts';
import type { Declarations } from '../world/declarations.ts';
import { openRunEmulator } from '../runner/emulator.ts';
import { PROFILE_PATH } from '../runner/profile.ts';
import { startTarget } from '../runner/target.ts';
import { withTeardown } from '../runner/teardown.ts';
import { startRunUpstream } from '../runner/upstream.ts';
import { runUpstream } from '../world/controlled-upstream.ts';
import { DEFAULT_MAX_STORE_WAIT_MS, loadProfile, type Profile } from '../world/parameters.ts';
import { executeHistory, type HistoryEnvironment, type HistoryResult } from './execute.ts';
import type { HistoryRoute } from './operations.ts';
import { formatCounterexample, parseReplayScript, type ReplayScript, SCRIPT_FILE } from './script.ts';
import { searchHistories, type SearchResult } from './search.ts';

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

/**
 * What every history of a run against `targetUrl` shares: the profile's routes, keys and secret, and what the target
 * declares (store faults, refunds of failed handlers, and for a gateway the run's controlled upstream, whose faults
 * the histories then draw). `history` and the bounded search of a robust conformance run use it.
 */
export function historyEnvironment(profile: Profile, declarations: Declarations, targetUrl: string, emulatorUrl: string): HistoryEnvironment {
  const upstream = (declarations.capabilities ?? []).includes('gateway') ? runUpstream() : undefined;
  return {
    ...(upstream ? { upstream } : {}),
    targetUrl,
    emulatorUrl,
    routes: historyRoutes(profile),
    keys: { publishable: profile.stripePublishableKey, secret: profile.stripeSecretKey },
    serverSecret: profile.serverSecret,
    handledPath: profile.handledPath ?? '/_conformance/handled',
    storeFaults: (declarations.capabilities ?? []).includes('storeFaults'),
    refunds: declarations.refundOnHandlerError === true,
    faultDelayMs: Math.max(1, Math.floor((profile.maxStoreWaitMs ?? DEFAULT_MAX_STORE_WAIT_MS) / 3)),
    requestTimeoutMs: 15_000,
  };
}

/** One failure as reported: the broken invariant, the shrunk history and its transcript. */
interface ReportedFailure {
  ids: string[];
  message: string;
  at: string;
  script: ReplayScript;
  shrinks: number;
  replay: string;
  transcript: string;
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
  /** The first failure found. */
  failure?: ReportedFailure;
  /** With `--repeat N`: each search, by seed (how many histories it drew until one failed, and what it found). */
  searches?: Array<{ seed: number; runs: number; durationMs: number; failure?: ReportedFailure }>;
  error?: string;
}

/** The command line that replays a counterexample, as the user ran this one (`history …`, without the kit's command). */
export function replayCommand(options: HistoryOptions, seed: number, path: string | undefined): string {
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
    const emulator = await openRunEmulator(options, profilePath);
    teardown.add('the Stripe emulator', () => emulator.close());
    const reportsPath = resolve(options.reportsDir);
    mkdirSync(reportsPath, { recursive: true });
    const upstream = capabilities.includes('gateway') ? await startRunUpstream(profilePath, teardown) : undefined;
    const env = upstream ? { CREDIT402_UPSTREAM_URL: upstream.url } : undefined;
    const target = await startTarget(options.target, { emulatorUrl: emulator.url, profilePath, teardown, logFile: join(reportsPath, 'history-target.log'), ...(env ? { env } : {}) });
    say(`target: ${target.description} at ${target.url}; Stripe emulator at ${emulator.url}`);
    const environment = historyEnvironment(profile, options.declarations, target.url, emulator.url);
    const summary: HistorySummary = { target: target.description, seed: options.seed, runs: 0, passed: 0, failed: 0, durationMs: 0, capabilities, answers: {} };
    const tally = (result: HistoryResult): void => {
      for (const exchange of result.exchanges) {
        const key = exchange.status === undefined ? 'no answer' : `${exchange.status}${exchange.errorCode ? ` ${exchange.errorCode}` : exchange.challenge ? ' challenge' : ''}`;
        summary.answers[key] = (summary.answers[key] ?? 0) + 1;
      }
    };
    const searches: SearchResult[] = [];
    if (replayed) {
      say(`replaying ${options.replay}: ${replayed.operations.length} operations`);
      const replayStarted = Date.now();
      const result = await executeHistory(replayed.operations, environment);
      tally(result);
      searches.push({ seed: replayed.seed, runs: 1, shrinks: 0, durationMs: Date.now() - replayStarted, ...(result.violation ? { failing: { script: replayed, result, drawn: 1 } } : {}) });
    } else {
      const seeds = Array.from({ length: options.repeat }, (_, index) => options.seed + index);
      say(`seed ${seeds.length > 1 ? `${seeds[0]} to ${seeds.at(-1)} (${seeds.length} searches)` : options.seed}${options.freshSeed ? ' (fresh: replay with --seed)' : ''}, up to ${options.runs} histories of at most ${options.maxOps} operations, ${options.seconds} s${seeds.length > 1 ? ' each' : ''}${environment.storeFaults ? ', store faults on' : ''}${environment.refunds ? ', failed handlers refunded' : ''}${environment.upstream ? ', upstream faults on' : ''}`);
      for (const seed of seeds) {
        const search = await searchHistories(environment, { seed, ...(options.path ? { path: options.path } : {}), runs: options.runs, maxOps: options.maxOps, seconds: options.seconds }, tally);
        searches.push(search);
        if (search.error !== undefined) break;
      }
    }
    const error = searches.find((search) => search.error !== undefined)?.error;
    if (error !== undefined) {
      summary.error = error instanceof Error ? error.message : String(error);
      say(`the kit could not run a history: ${summary.error}`);
    }
    const exit = target.group?.exitStatus();
    if (exit) say(`the target ${exit} during the run; its last output:\n${target.group?.tail().join('\n')}`);
    const reported: HistorySummary['searches'] = [];
    for (const search of searches) {
      summary.runs += search.runs;
      const failing = search.failing;
      if (!failing?.result.violation) {
        summary.passed += search.runs;
        reported.push({ seed: search.seed, runs: search.runs, durationMs: search.durationMs });
        if (searches.length > 1) process.stdout.write(`seed ${search.seed}: ${search.runs} histories passed in ${(search.durationMs / 1000).toFixed(1)} s\n`);
        continue;
      }
      const replay = replayCommand(options, search.seed, failing.script.path);
      if (!summary.failure) writeFileSync(join(reportsPath, SCRIPT_FILE), `${JSON.stringify(failing.script, null, 2)}\n`);
      const transcript = formatCounterexample(failing.script, failing.result, replay);
      const { ids, message, at } = failing.result.violation;
      const failure: ReportedFailure = { ids, message, at, script: failing.script, shrinks: search.shrinks, replay, transcript };
      summary.failure ??= failure;
      summary.failed += 1;
      summary.passed += Math.max(0, failing.drawn - 1);
      reported.push({ seed: search.seed, runs: failing.drawn, durationMs: search.durationMs, failure });
      process.stdout.write(`${transcript}\n\n`);
      if (searches.length > 1) {
        process.stdout.write(`seed ${search.seed}: failed ${ids.join(' ')} after ${failing.drawn} histories, shrunk to ${failing.script.operations.length} operations, in ${(search.durationMs / 1000).toFixed(1)} s\n\n`);
      }
    }
    if (searches.length > 1) summary.searches = reported;
    summary.durationMs = Date.now() - started;
    writeFileSync(join(reportsPath, 'history-summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    if (options.freshSeed && summary.failed > 0) say(`the seed was fresh: ${options.seed}`);
    const answers = Object.entries(summary.answers).sort(([, a], [, b]) => b - a).map(([key, count]) => `${count}× ${key}`).join(', ');
    const verdict = searches.length > 1 ? `; ${summary.failed} of ${searches.length} searches failed` : summary.failure ? `; failed: ${summary.failure.ids.join(' ')}` : '';
    process.stdout.write(`histories: seed ${options.seed}, ${summary.runs} run in ${(summary.durationMs / 1000).toFixed(1)} s (answers: ${answers})${verdict}\n`);
    process.stdout.write(`${summary.passed} passed, ${summary.failed + (summary.error ? 1 : 0)} failed\n`);
    if (summary.error) return 2;
    return summary.failed > 0 ? 1 : 0;
  });
}
