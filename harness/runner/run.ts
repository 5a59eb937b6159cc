// One conformance run: emulator, target, suite, the generated histories of a robust run, reports; everything started is stopped again, whatever happens.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { boundedHistorySearch } from '../history/bounded.ts';
import { withHistoryVerdict } from '../report/history-verdict.ts';
import type { HistoryVerdict } from '../report/run-summary.ts';
import { readRequirements } from '../report/spec-requirements.ts';
import type { RunOptions } from './cli-options.ts';
import { plannedScenarios, runSuite, type SuiteOptions } from './cucumber-suite.ts';
import { openRunEmulator } from './emulator.ts';
import { historiesCannotJudge, historyPlan } from './history-plan.ts';
import { PROFILE_PATH } from './profile.ts';
import { startTarget } from './target.ts';
import { startRunUpstream } from './upstream.ts';
import { withTeardown } from './teardown.ts';

/** Overrides for tests: where the suite lives, and which profile. */
export interface RunEnvironment extends Pick<SuiteOptions, 'cwd' | 'paths' | 'imports' | 'stdout'> {
  profilePath?: string;
}

const say = (line: string): void => void process.stderr.write(`conformance: ${line}\n`);
const declared = ({ declarations }: RunOptions): string =>
  Object.keys(declarations).length === 0 ? '' : `; the target declares ${JSON.stringify(declarations)}`;

/** Runs the suite against the chosen target; resolves to the exit code (0 = every scenario passed). */
export async function runConformance(options: RunOptions, environment: RunEnvironment = {}): Promise<number> {
  const profilePath = environment.profilePath ?? PROFILE_PATH;
  const { reportsDir } = options;
  const suite: SuiteOptions = {
    ...environment,
    reportsDir,
    parallel: options.parallel,
    ...(options.tags ? { tags: options.tags } : {}),
    runLevel: options.level,
    robustDeclared: options.declarations.robustness === true,
    ...(options.declarations.name ? { name: options.declarations.name } : {}),
  };
  const scenarios = await plannedScenarios(suite, say, 'features/*.feature');
  if (scenarios === undefined) return 2;
  return withTeardown(say, async (teardown) => {
    const emulator = await openRunEmulator(options, profilePath);
    teardown.add('the Stripe emulator', () => emulator.close());
    say(`Stripe emulator at ${emulator.url}${options.emulatorUrl ? ' (already running)' : ''}`);
    const reportsPath = resolve(reportsDir);
    mkdirSync(reportsPath, { recursive: true });
    const logFile = join(reportsPath, 'target.log');
    // A gateway (capability `gateway`) is started in front of the kit's own upstream, which must listen first.
    const upstream = options.declarations.capabilities?.includes('gateway') ? await startRunUpstream(profilePath, teardown) : undefined;
    if (upstream) say(`controlled upstream at ${upstream.url} (CREDIT402_UPSTREAM_URL)`);
    const env = upstream ? { CREDIT402_UPSTREAM_URL: upstream.url } : undefined;
    const target = await startTarget(options.target, { emulatorUrl: emulator.url, profilePath, teardown, logFile, ...(env ? { env } : {}) });
    say(`target: ${target.description} at ${target.url}`);
    const selection = [options.tags && `--tags "${options.tags}"`, options.parallel > 1 && `${options.parallel} workers`].filter(Boolean).join(', ');
    say(`running ${scenarios} scenario${scenarios === 1 ? '' : 's'}${selection ? ` (${selection})` : ''}`);
    say(`judging up to the ${options.level} level${declared(options)}`);
    if (options.level === 'robust' && options.declarations.robustness !== true) {
      say('--level robust, but the target does not declare robustness=true: the robustness scenarios are not run (add --declare robustness=true if it implements spec section 14)');
    }
    suite.target = target.description;
    const history = historyPlan(options);
    if (history.say) say(history.say);
    if (history.seconds > 0) {
      const { seconds, seed } = history;
      suite.afterSuite = async (summary) => {
        const cannot = historiesCannotJudge(summary);
        if (cannot !== undefined) {
          say(`no generated histories: ${cannot}`);
          return withHistoryVerdict(summary, { outcome: 'not-run', seed, seconds, histories: 0, durationMs: 0, reason: cannot }, readRequirements());
        }
        say(`generated histories: seed ${seed}${options.seed === undefined ? ' (fresh; --seed draws the same histories again)' : ''}, for ${seconds} s (--history-seconds; 0 = none)`);
        const started = Date.now();
        const verdict = await boundedHistorySearch({
          targetUrl: target.url,
          emulatorUrl: emulator.url,
          profilePath,
          target: options.target,
          declarations: options.declarations,
          reportsDir,
          seed,
          seconds,
          ...(environment.stdout ? { stdout: environment.stdout } : {}),
        }).catch((error: unknown): HistoryVerdict => {
          // The kit's own failure: said, and no requirement of the target is failed for it.
          const reason = `the kit could not run the histories: ${error instanceof Error ? error.message : String(error)}`;
          return { outcome: 'not-run', seed, seconds, histories: 0, durationMs: Date.now() - started, reason };
        });
        return withHistoryVerdict(summary, verdict, readRequirements());
      };
    }
    const success = await runSuite(suite, {
      targetUrl: target.url,
      emulatorUrl: emulator.url,
      profilePath,
      level: options.level,
      declarations: JSON.stringify(options.declarations),
    });
    const exit = target.group?.exitStatus();
    if (exit) say(`the target ${exit} during the run; its last output:\n${target.group?.tail().join('\n')}`);
    return success ? 0 : 1;
  });
}
