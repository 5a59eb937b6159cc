// The kit's verdict must not depend on the target's Stripe client, retry policy or timing: same verdict for any SDK retry count, races forced every run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-fairness-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

interface KitRun {
  code: number | null;
  output: string;
}

/** Runs the kit against `target` (a `--target-cmd`) on its own emulator; the target declares the robustness profile. */
function conformance(label: string, target: string, tags: string): Promise<KitRun> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const args = [...kit, 'conformance', '--target-cmd', target, '--declare', 'robustness=true', '--tags', tags, '--emulator-port', '0', '--reports', join(reports, label)];
  const child = spawn(node, args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** Runs `jobs` two at a time (the kit and its target are two processes each); resolves in job order. */
async function twoAtATime<T>(jobs: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < jobs.length; i += 2) results.push(...(await Promise.all(jobs.slice(i, i + 2).map((job) => job()))));
  return results;
}

/** The final `N passed, N failed` line. */
const tally = (output: string): string => /^\d+ passed, \d+ failed$/m.exec(output)?.[0] ?? 'no tally';

const REFERENCE = `${targetCommand('reference/cli.ts', ['serve', '--store', 'memory', '--framework', 'fastify', '--host', '127.0.0.1'])} --profile "$CREDIT402_PROFILE" --port "$PORT"`;

/** Scenarios whose verdict used to depend on timing: concurrent first payments (§7, §14) and the client that gives up (CR-14.8). */
const RACES = '@CR-13.22 or @CR-14.7 or (@CR-14.8 and @CR-7.23)';
const RACE_SCENARIOS = [
  '5 first payments at once with one card are each served, and every charge is credited once',
  '10 first payments at once with one new card make one charge',
  'the client gives up while the processor is still charging, then retries: one charge',
];
const RUNS = 5;

describe('processor fairness', () => {
  let byRetries: KitRun[] = [];
  let doubleQuotes: KitRun = { code: null, output: '' };
  let mutant: KitRun[] = [];
  let reference: KitRun[] = [];

  beforeAll(async () => {
    const client = (retries: number, quote: 'single' | 'double') => targetCommand('tooling/self-test/stripe-client.ts', [String(retries), quote]);
    const [quoted, ...retried] = await twoAtATime([
      () => conformance('double-quotes', client(0, 'double'), '@CR-7.5'),
      ...[0, 1, 2].map((retries) => () => conformance(`retries-${retries}`, client(retries, 'single'), '@faults')),
    ]);
    doubleQuotes = quoted ?? doubleQuotes;
    byRetries = retried;
    const runs = Array.from({ length: RUNS }, (_, run) => run);
    mutant = await twoAtATime(runs.map((run) => () => conformance(`fresh-charge-key-${run}`, targetCommand('tooling/self-test/fresh-charge-key.ts'), RACES)));
    reference = await twoAtATime(runs.map((run) => () => conformance(`reference-${run}`, REFERENCE, RACES)));
  }, 600_000);

  it('CR-14.8: targets whose Stripe client retries 0, 1 or 2 times get the same verdict on every fault scenario: passed', () => {
    for (const run of byRetries) expect({ code: run.code, tally: tally(run.output) }, run.output).toEqual({ code: 0, tally: byRetries[0] && tally(byRetries[0].output) });
    expect(byRetries).toHaveLength(3);
  });

  it('CR-7.19: a target quoting its customer search in double quotes is judged, and faulted, like one using single quotes', () => {
    expect({ code: doubleQuotes.code, tally: tally(doubleQuotes.output) }, doubleQuotes.output).toEqual({ code: 0, tally: '3 passed, 0 failed' });
  });

  it(`CR-7.16 CR-14.7 CR-14.8: a target that double-charges fails every race scenario in each of ${RUNS} runs`, () => {
    for (const run of mutant) {
      expect(tally(run.output), run.output).toBe(`0 passed, ${RACE_SCENARIOS.length} failed`);
      for (const name of RACE_SCENARIOS) expect(run.output, run.output).toContain(`› ${name}`);
    }
  });

  it(`the reference passes every race scenario in each of ${RUNS} runs`, () => {
    for (const run of reference) expect({ code: run.code, tally: tally(run.output) }, run.output).toEqual({ code: 0, tally: `${RACE_SCENARIOS.length} passed, 0 failed` });
  });
});
