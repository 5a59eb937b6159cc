// Wall time of a full conformance run against the reference server (`npm run conformance`), when it exists.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { round } from './stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_MS = 300_000;

/** The outcome of timing a conformance run. */
export type ConformanceResult =
  | { status: 'passed'; seconds: number; command: string }
  | { status: 'not available'; reason: string; seconds?: number; command?: string; outputTail?: string };

function command(): string[] | undefined {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  if (scripts.conformance !== undefined) return ['npm', 'run', '--silent', 'conformance', '--'];
  return undefined;
}

/** Runs the conformance suite once (own emulator port, reports in a temp directory, without the generated histories that follow it by default: their time is a budget, not a cost) and times it. */
export async function timeConformance(): Promise<ConformanceResult> {
  const base = command();
  if (base === undefined) return { status: 'not available', reason: 'package.json has no conformance script' };
  const reports = mkdtempSync(join(tmpdir(), 'credit402-bench-conformance-'));
  const argv = [...base, '--emulator-port', '0', '--reports', reports, '--history-seconds', '0'];
  const shown = argv.join(' ');
  let output = '';
  const started = performance.now();
  try {
    const [program, ...args] = argv as [string, ...string[]];
    // Its own process group, so a time-out ends the runner and everything it started.
    const child = spawn(program, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const killGroup = (): void => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    };
    const timer = setTimeout(killGroup, TIMEOUT_MS);
    process.once('exit', killGroup);
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(null));
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    clearTimeout(timer);
    process.off('exit', killGroup);
    const seconds = round((performance.now() - started) / 1000, 1);
    if (code === 0) return { status: 'passed', seconds, command: shown };
    const reason = code === null ? `did not finish within ${TIMEOUT_MS / 1000} s` : `exited with ${code}`;
    return { status: 'not available', reason, seconds, command: shown, outputTail: output.split('\n').slice(-15).join('\n') };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}
