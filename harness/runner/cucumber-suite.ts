// Runs the Gherkin suite through cucumber's JavaScript API, with the kit's console formatter and file reports (the kit's HTML report, JUnit with reasons).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { loadConfiguration, loadSources, runCucumber, type IRunConfiguration } from '@cucumber/cucumber/api';
import { renderHtmlReport } from '../report/html-report.ts';
import { addSkipReasons } from '../report/junit-reasons.ts';
import type { RunSummary } from '../report/run-summary.ts';
import { readRequirements } from '../report/spec-requirements.ts';
import type { Level } from '../world/levels.ts';
import { childNodeOptions, MODULE_EXTENSION, ROOT } from './paths.ts';

/** What the World receives (cucumber `worldParameters`). */
interface WorldParameters {
  targetUrl: string;
  emulatorUrl: string;
  profilePath: string;
  [key: string]: string;
}

/** Where the suite lives and how to run it. */
export interface SuiteOptions {
  /** Directory the globs are relative to; default: the kit's root. */
  cwd?: string;
  /** Feature globs; default `features/**\/*.feature`. */
  paths?: string[];
  /** Support-code globs loaded with import(); default the World and the steps. */
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
}

/** The World and the steps: every module under harness/world and harness/steps except unit tests and declarations. */
function supportCode(cwd: string): string[] {
  return ['harness/world', 'harness/steps'].flatMap((folder) =>
    readdirSync(join(cwd, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith(`.${MODULE_EXTENSION}`) && !/\.(test|d)\.[a-z]+$/.test(file))
      .map((file) => relative(cwd, join(cwd, folder, file)))
      .sort(),
  );
}

const CONSOLE_FORMATTER = new URL(`../report/console-formatter.${MODULE_EXTENSION}`, import.meta.url).href;

/** Report file names under the reports directory. */
const REPORT_FILES = { junit: 'conformance.junit.xml', json: 'conformance.json', html: 'conformance.html', summary: 'conformance-summary.json' } as const;

async function configure(options: SuiteOptions, worldParameters: WorldParameters | Record<string, never>): Promise<IRunConfiguration> {
  const cwd = options.cwd ?? ROOT;
  const reports = resolve(options.reportsDir ?? 'reports');
  const { runConfiguration } = await loadConfiguration(
    {
      file: false,
      provided: {
        paths: options.paths ?? ['features/**/*.feature'],
        import: options.imports ?? supportCode(cwd),
        ...(options.tags ? { tags: options.tags } : {}),
        parallel: options.parallel ?? 0,
        worldParameters,
        strict: true,
      },
    },
    { cwd },
  );
  const files = {
    [resolve(reports, REPORT_FILES.junit)]: 'junit',
    [resolve(reports, REPORT_FILES.json)]: 'json',
  };
  runConfiguration.formats = {
    stdout: CONSOLE_FORMATTER,
    files,
    publish: false,
    options: {
      junit: { suiteName: 'credit402 conformance' },
      credit402: {
        reports: [...Object.keys(files), resolve(reports, REPORT_FILES.html), resolve(reports, REPORT_FILES.summary)],
        summaryFile: resolve(reports, REPORT_FILES.summary),
        runLevel: options.runLevel ?? 'strict',
        robustDeclared: options.robustDeclared ?? false,
        ...(options.target ? { target: options.target } : {}),
      },
    },
  };
  return runConfiguration;
}

/** After the run: the kit's HTML report from the summary, and the not-run and inconclusive reasons in the JUnit file. */
function finishReports(reports: string, summary: RunSummary): void {
  try {
    writeFileSync(resolve(reports, REPORT_FILES.html), renderHtmlReport(summary, readRequirements()));
    const junit = resolve(reports, REPORT_FILES.junit);
    if (existsSync(junit)) writeFileSync(junit, addSkipReasons(readFileSync(junit, 'utf8'), summary.scenarios ?? []));
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
 * Runs the suite; resolves to the kit's verdict: true when no scenario failed and the run had no error (inconclusive
 * and not-run scenarios do not fail it), read from the console report's summary; cucumber's own verdict without one.
 */
export async function runSuite(options: SuiteOptions, worldParameters: WorldParameters): Promise<boolean> {
  const cwd = options.cwd ?? ROOT;
  const configuration = await configure(options, worldParameters);
  const reports = resolve(options.reportsDir ?? 'reports');
  const summaryFile = resolve(reports, REPORT_FILES.summary);
  for (const stale of [summaryFile, resolve(reports, REPORT_FILES.html)]) rmSync(stale, { force: true });
  // Parallel workers are fresh Node processes: from the sources, make them load TypeScript support code too.
  const nodeOptions = [process.env.NODE_OPTIONS, ...childNodeOptions()].filter(Boolean).join(' ');
  const { success } = await runCucumber(configuration, {
    cwd,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    stdout: options.stdout ?? process.stdout,
    stderr: process.stderr,
  });
  if (!existsSync(summaryFile)) return success;
  const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as RunSummary;
  finishReports(reports, summary);
  return summary.failed === 0 && summary.runErrors.length === 0;
}
