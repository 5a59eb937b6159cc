// Runs the Gherkin suite through cucumber's JavaScript API, with the kit's console formatter and file reports (the kit's HTML report, JUnit with reasons).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { loadConfiguration, loadSources, runCucumber, type IRunConfiguration } from '@cucumber/cucumber/api';
import { SCRIPT_FILE } from '../history/script.ts';
import { formatClosingBlock } from '../report/closing-block.ts';
import { renderHtmlReport } from '../report/html-report.ts';
import { addHistoryTestCase } from '../report/junit-history.ts';
import { addSkipReasons } from '../report/junit-reasons.ts';
import type { RunSummary } from '../report/run-summary.ts';
import { readRequirements, type RunMode } from '../report/spec-requirements.ts';
import type { Level } from '../world/levels.ts';
import { childNodeOptions, MODULE_EXTENSION, ROOT } from './paths.ts';

/** What the World receives (cucumber `worldParameters`): the server World's URLs and profile, or the client World's level and declarations. */
type WorldParameters = Record<string, string>;

/** Where the suite lives and how to run it. */
export interface SuiteOptions {
  /** Directory the globs are relative to; default: the kit's root. */
  cwd?: string;
  /** What the run judges (default server): the suite, its support code and the reports' names follow. */
  mode?: RunMode;
  /** Feature globs; default the mode's suite (`features/*.feature` or `features/client/*.feature`). */
  paths?: string[];
  /** Support-code globs loaded with import(); default the mode's World and steps. */
  imports?: string[];
  tags?: string;
  parallel?: number;
  /** Report files go here (relative to the working directory of the process); default `reports`. */
  reportsDir?: string;
  /** The console report's stream; default process.stdout. */
  stdout?: Writable;
  /** The highest level judged (default strict); the World reads it from worldParameters.level too. */
  runLevel?: Level;
  /** Whether the target declared the robustness profile. */
  robustDeclared?: boolean;
  /** What the target is, for the reports. */
  target?: string;
  /** The name the target declared (`--declare name=…`), for the reports. */
  name?: string;
  /** Errors of the run found outside cucumber (a client's driver that broke its contract), read once the run ended. */
  runErrors?: () => string[];
  /**
   * Runs after the suite, before the reports are finished and the console's closing block is printed (the generated
   * histories of a robust run); resolves to the summary with what it found.
   */
  afterSuite?: (summary: RunSummary) => Promise<RunSummary>;
}

/** Per mode: the default features, the support code folders, the report files and the JUnit suite's name. */
const MODES = {
  server: {
    features: ['features/*.feature'],
    support: ['harness/world', 'harness/steps'],
    files: { junit: 'conformance.junit.xml', json: 'conformance.json', html: 'conformance.html', summary: 'conformance-summary.json' },
    suiteName: 'credit402 conformance',
  },
  client: {
    features: ['features/client/*.feature'],
    support: ['harness/client'],
    files: { junit: 'client-conformance.junit.xml', json: 'client-conformance.json', html: 'client-conformance.html', summary: 'client-conformance-summary.json' },
    suiteName: 'credit402 client conformance',
  },
} as const;

/** The report files of a run of `mode`, by kind (names under the reports directory). */
export function reportFiles(mode: RunMode = 'server'): (typeof MODES)[RunMode]['files'] {
  return MODES[mode].files;
}

/** The World and the steps of a mode: every module under its folders except unit tests, declarations and fixtures. */
function supportCode(cwd: string, mode: RunMode): string[] {
  return MODES[mode].support.flatMap((folder) =>
    readdirSync(join(cwd, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith(`.${MODULE_EXTENSION}`) && !/\.(test|d)\.[a-z]+$/.test(file) && !file.split(/[\\/]/).includes('fixtures'))
      .map((file) => relative(cwd, join(cwd, folder, file)))
      .sort(),
  );
}

const CONSOLE_FORMATTER = new URL(`../report/console-formatter.${MODULE_EXTENSION}`, import.meta.url).href;

async function configure(options: SuiteOptions, worldParameters: WorldParameters | Record<string, never>): Promise<IRunConfiguration> {
  const cwd = options.cwd ?? ROOT;
  const mode = options.mode ?? 'server';
  const reports = resolve(options.reportsDir ?? 'reports');
  const { runConfiguration } = await loadConfiguration(
    {
      file: false,
      provided: {
        paths: options.paths ?? [...MODES[mode].features],
        import: options.imports ?? supportCode(cwd, mode),
        ...(options.tags ? { tags: options.tags } : {}),
        parallel: options.parallel ?? 0,
        worldParameters,
        strict: true,
      },
    },
    { cwd },
  );
  const [junit, json, html, summary] = reportPaths(reports, mode);
  const files = { [junit]: 'junit', [json]: 'json' };
  runConfiguration.formats = {
    stdout: CONSOLE_FORMATTER,
    files,
    publish: false,
    options: {
      junit: { suiteName: MODES[mode].suiteName },
      credit402: {
        mode,
        reports: [junit, json, html, summary],
        summaryFile: summary,
        ...(options.afterSuite ? { deferClosing: true } : {}),
        runLevel: options.runLevel ?? 'strict',
        robustDeclared: options.robustDeclared ?? false,
        ...(options.target ? { target: options.target } : {}),
        ...(options.name ? { name: options.name } : {}),
      },
    },
  };
  return runConfiguration;
}

/** The report files of a run of `mode` under `reports`, as the console names them: JUnit, cucumber's JSON, HTML, the summary. */
function reportPaths(reports: string, mode: RunMode): [string, string, string, string] {
  const names = reportFiles(mode);
  return [resolve(reports, names.junit), resolve(reports, names.json), resolve(reports, names.html), resolve(reports, names.summary)];
}

/** After the run: the kit's HTML report from the summary, and the not-run and inconclusive reasons (and the history verdict) in the JUnit file. */
function finishReports(reports: string, summary: RunSummary, mode: RunMode): void {
  const names = reportFiles(mode);
  try {
    writeFileSync(resolve(reports, names.html), renderHtmlReport(summary, readRequirements()));
    const junit = resolve(reports, names.junit);
    if (existsSync(junit)) writeFileSync(junit, addHistoryTestCase(addSkipReasons(readFileSync(junit, 'utf8'), summary.scenarios ?? []), summary.history));
  } catch (error) {
    process.stderr.write(`conformance: could not finish the reports in ${reports}: ${(error as Error).message}\n`);
  }
}

/** The scenarios the options select, checked before anything is started (parse errors and bad tag expressions throw). */
export async function planSuite(options: SuiteOptions): Promise<{ scenarios: number }> {
  const configuration = await configure(options, {});
  const { plan, errors } = await loadSources(configuration.sources, { cwd: options.cwd ?? ROOT });
  if (errors.length > 0) {
    throw new Error(errors.map((error) => `${error.uri}:${error.location.line}: ${error.message}`).join('\n'));
  }
  return { scenarios: plan.length };
}

/**
 * The number of scenarios the options select; undefined after telling `say` why none can run: the suite does not load,
 * or nothing matches (`where`: the features' glob, for the message).
 */
export async function plannedScenarios(options: SuiteOptions, say: (line: string) => void, where: string): Promise<number | undefined> {
  let scenarios: number;
  try {
    ({ scenarios } = await planSuite(options));
  } catch (error) {
    const { message, cause } = error as Error;
    say(`cannot load the suite: ${message}${cause instanceof Error ? `: ${cause.message}` : ''}`);
    return undefined;
  }
  if (scenarios > 0) return scenarios;
  say(options.tags ? `no scenario matches --tags "${options.tags}"` : `no scenarios found (${where})`);
  return undefined;
}

/** The console report's summary; a clear error naming the file when it is not JSON (another run writing the same reports folder, say). */
function readSummary(file: string): RunSummary {
  const text = readFileSync(file, 'utf8');
  try {
    return JSON.parse(text) as RunSummary;
  } catch (error) {
    throw new Error(`the run's summary ${file} is not JSON (${(error as Error).message}; ${text.length} bytes): is another run writing to the same --reports folder?`);
  }
}

/**
 * Runs the suite; resolves to the kit's verdict: true when no scenario failed and the run had no error (inconclusive
 * and not-run scenarios do not fail it), read from the console report's summary; cucumber's own verdict without one.
 */
export async function runSuite(options: SuiteOptions, worldParameters: WorldParameters): Promise<boolean> {
  const cwd = options.cwd ?? ROOT;
  const configuration = await configure(options, worldParameters);
  const reports = resolve(options.reportsDir ?? 'reports');
  const mode = options.mode ?? 'server';
  const summaryFile = resolve(reports, reportFiles(mode).summary);
  for (const stale of [summaryFile, resolve(reports, reportFiles(mode).html)]) rmSync(stale, { force: true });
  // Parallel workers are fresh Node processes: from the sources, make them load TypeScript support code too.
  const nodeOptions = [process.env.NODE_OPTIONS, ...childNodeOptions()].filter(Boolean).join(' ');
  const { success } = await runCucumber(configuration, {
    cwd,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    stdout: options.stdout ?? process.stdout,
    stderr: process.stderr,
  });
  if (!existsSync(summaryFile)) return success;
  let summary = readSummary(summaryFile);
  const runErrors = options.runErrors?.() ?? [];
  summary.runErrors.push(...runErrors);
  if (options.afterSuite) summary = await options.afterSuite(summary);
  if (runErrors.length > 0 || options.afterSuite) writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
  finishReports(reports, summary, mode);
  if (options.afterSuite) {
    const counterexample = summary.history?.outcome === 'failed' ? [resolve(reports, SCRIPT_FILE)] : [];
    (options.stdout ?? process.stdout).write(formatClosingBlock(summary, [...reportPaths(reports, mode), ...counterexample]));
  }
  return summary.failed === 0 && summary.runErrors.length === 0 && summary.history?.outcome !== 'failed';
}
