// Test helper: runs the conformance kit against a self-test target of this folder and reads its console report.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';

/** The kit's exit code and console report. */
export interface KitRun {
  code: number | null;
  output: string;
}

/** Runs `conformance` against `tooling/self-test/<target>.ts` with `args`, its reports written under `reports`. */
export function runKit(target: string, reports: string, args: readonly string[]): Promise<KitRun> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const command = targetCommand(`tooling/self-test/${target}.ts`);
  const child = spawn(node, [...kit, 'conformance', '--target-cmd', command, '--emulator-port', '0', '--reports', join(reports, target), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** The requirements listed under "requirements failed:", each as `<ID> <level>` (e.g. `CR-3.4 strict`). */
export function failedRequirements(output: string): string[] {
  return [...(output.split('requirements failed:')[1] ?? '').matchAll(/^ {2}(CR-\d+\.\d+) \[(\w+)\]/gm)].map((match) => `${match[1]} ${match[2]}`);
}
