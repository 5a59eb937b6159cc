// The history mutants' test runs: each mutant must fail the kit's `history` in 5 searches of 5 (fixed seeds), each on its requirement with a shrunk history of at most a dozen operations. Two test files share them, so that vitest runs them side by side.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-history-mutants-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** Searches per mutant, each with its own seed. */
const SEARCHES = 5;
/** The budget of one search: a sixth of the default's 60 s is left for shrinking; finding stays well within the default. */
const SECONDS = 30;
/** What a mutant of a refund needs declared: store faults (a refund's store call failed) and the refunds themselves. */
export const REFUNDS = ['--declare', 'capabilities=storeFaults,records', '--declare', 'refundOnHandlerError=true'];

/** What a gateway mutant needs declared: the kit's upstream in front of which it runs, and whose failures it must give back. */
export const GATEWAY = ['--declare', 'capabilities=gateway'];
/** A gateway mutant's upstream timeout: a stalled upstream is answered 504 after a second, so that shrinking a history that holds one stays quick. */
export const GATEWAY_ARGS = ['--upstream-timeout-ms', '1000'];

/** Runs `history --repeat 5` against `tooling/self-test/<mutant>.ts` (with `mutantArgs`) from `seed`; resolves to the exit code and the output. */
function history(mutant: string, seed: number, declarations: readonly string[] = [], mutantArgs: readonly string[] = []): Promise<{ code: number | null; output: string }> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const args = [
    ...kit, 'history', '--target-cmd', targetCommand(`tooling/self-test/${mutant}.ts`, mutantArgs), ...declarations, '--emulator-port', '0',
    '--seed', String(seed), '--repeat', String(SEARCHES), '--seconds', String(SECONDS), '--reports', join(reports, mutant),
  ];
  const child = spawn(node, args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** Each search's verdict line: `seed N: failed IDS after H histories, shrunk to K operations, in T s`. */
function verdicts(output: string): Array<{ seed: number; ids: string; operations: number }> {
  return [...output.matchAll(/^seed (\d+): failed (.+) after \d+ histories, shrunk to (\d+) operations, in [\d.]+ s$/gm)].map((match) => ({
    seed: Number(match[1]),
    ids: match[2] as string,
    operations: Number(match[3]),
  }));
}

/** Runs the searches and expects each to fail on exactly `ids` with at most 12 operations and a message containing `says`. */
async function expectCaught(mutant: string, seed: number, ids: string, says: string, declarations: readonly string[] = [], mutantArgs: readonly string[] = []): Promise<void> {
  const { code, output } = await history(mutant, seed, declarations, mutantArgs);
  expect(code, output).toBe(1);
  const found = verdicts(output);
  expect(found.map((verdict) => verdict.seed), output).toEqual(Array.from({ length: SEARCHES }, (_, index) => seed + index));
  for (const verdict of found) {
    expect(verdict.ids, output).toBe(ids);
    expect(verdict.operations, output).toBeLessThanOrEqual(12);
  }
  expect(output.split('\n').filter((line) => line === `✗ history failed: ${ids}`)).toHaveLength(SEARCHES);
  expect(output).toContain(says);
  expect(output).toMatch(new RegExp(`; ${SEARCHES} of ${SEARCHES} searches failed$`, 'm'));
}

/** A mutant, the first seed of its searches, the requirement it must fail, what the failure says, and what it needs. */
export interface HistoryMutant {
  title: string;
  mutant: string;
  seed: number;
  ids: string;
  says: string;
  declarations?: readonly string[];
  mutantArgs?: readonly string[];
}

/** One test per mutant: each caught in 5 searches of 5. */
export function describeHistoryMutants(mutants: readonly HistoryMutant[]): void {
  describe('history mutants: each caught in 5 searches of 5', () => {
    for (const { title, mutant, seed, ids, says, declarations, mutantArgs } of mutants) {
      it(title, async () => {
        await expectCaught(mutant, seed, ids, says, declarations, mutantArgs);
      }, 240_000);
    }
  });
}
