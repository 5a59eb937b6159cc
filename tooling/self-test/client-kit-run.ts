// Runs the kit's client mode (`credit402-conformance client --client-cmd CMD`) as a command, and reads what failed from its reports.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';
import { failedRequirements } from './run-kit.ts';

/** The driver of credit402/client (`--mutant NAME` for a mutant), as a `--client-cmd`. */
export const tsDriverCommand = (mutant?: string): string =>
  targetCommand('tooling/self-test/client-driver.ts', mutant === undefined ? [] : ['--mutant', mutant]);

/** The driver of the Python example client, as a `--client-cmd`. */
export const pythonDriverCommand = (): string => `python3 -B '${join(REPO_ROOT, 'examples/python-client/driver.py').replaceAll("'", `'\\''`)}'`;

/** The declarations of credit402/client: every level, with the restart and spending-limit profiles. */
export const TS_CLIENT_CLAIMS = ['--level', 'robust', '--declare', 'robustness=true', '--declare', 'capabilities=spending-limit'];

/** A failed scenario of a run: which of its checks charged which IDs. */
export interface FailedScenario {
  name: string;
  location: string;
  failedIds: string[];
  step?: string;
  message?: string;
}

/** How a run of the kit ended: exit code, console output (when captured), failed IDs and scenarios (from its summary). */
export interface ClientKitRun {
  code: number;
  output: string;
  failedIds: string[];
  failedScenarios: FailedScenario[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The failed IDs and scenarios of `reports/client-conformance-summary.json`; undefined when it is missing or unreadable. */
function readSummary(reports: string): Pick<ClientKitRun, 'failedIds' | 'failedScenarios'> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(reports, 'client-conformance-summary.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(value) || !Array.isArray(value.requirements) || !Array.isArray(value.scenarios)) return undefined;
  const failedIds = value.requirements.filter((item) => isObject(item) && typeof item.failed === 'number' && item.failed > 0).map((item) => String((item as { id: unknown }).id));
  const failedScenarios = value.scenarios
    .filter(isObject)
    .filter((scenario) => strings(scenario.failedIds).length > 0 || scenario.outcome === 'failed')
    .map((scenario) => ({ name: text(scenario.name) ?? '?', location: text(scenario.location) ?? '?', failedIds: strings(scenario.failedIds), step: text(scenario.step), message: text(scenario.message) }));
  return { failedIds, failedScenarios };
}

/** Runs the kit's client mode against `clientCmd` with `args`, reports under `reports`; `capture` keeps the console output instead of showing it. */
export function runClientKit(clientCmd: string, args: readonly string[], reports: string, capture: boolean): Promise<ClientKitRun> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const child = spawn(node, [...kit, 'client', '--client-cmd', clientCmd, '--reports', reports, ...args], {
    cwd: REPO_ROOT,
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { CREDIT402_KIT_COMMAND: 'npx tsx --conditions=credit402-source harness/cli.ts', ...process.env, ...(capture ? { FORCE_COLOR: '0' } : {}) },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      const read = readSummary(reports) ?? { failedIds: failedRequirements(output).map((line) => line.split(' ')[0] ?? line), failedScenarios: [] };
      resolve({ code: code ?? 1, output, ...read });
    }),
  );
}
