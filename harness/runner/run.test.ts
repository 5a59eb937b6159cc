// End-to-end tests of the runner on its fixture suite: emulator, a fixture target started by --target-cmd, reports, exit codes.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childNodeOptions, ROOT } from './paths.ts';
import { childOutput } from './fixtures/child-output.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-run-test-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

const TARGET_CMD = [process.execPath, ...childNodeOptions(), 'harness/runner/fixtures/fixture-target.ts'].join(' ');

/** Runs the fixture driver like the CLI; resolves to its exit code and output. */
function runFixture(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const target = args.includes('--target') ? [] : ['--target-cmd', TARGET_CMD];
  const child = spawn(process.execPath, [...childNodeOptions(), 'harness/runner/fixtures/run-fixture-suite.ts', '--emulator-port', '0', '--reports', reports, ...target, ...args], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return childOutput(child);
}

describe('runConformance on the fixture suite', () => {
  it('reports a failing scenario with its step, error and transcript, writes the reports and exits 1', async () => {
    const { code, stdout, stderr } = await runFixture();
    expect(stderr).toMatch(/target: `.*fixture-target\.ts` \(PORT=\d+\)/);
    expect(code).toBe(1);
    expect(stdout).toContain(
      '✗ 1) failed: CR-7.14 [wire]; not reached: CR-5.1\n  Runner fixture › a deliberately wrong expectation\n  harness/runner/fixtures/fixture.feature:16\n  failed at Then the status is 200, which CR-7.14 requires\n    [CR-7.14] ',
    );
    expect(stdout).toMatch(/--- text\/plain attachment ---\n {2}\| > GET \/api\/weather\n {2}\| < 402\n/);
    expect(stdout).toMatch(/requirements failed: 1 of 3 judged\n {2}CR-7\.14 \[wire\] Charged amount +fail \(1 of 1 scenarios failed\)\n/);
    expect(stdout).toContain('levels:\n  wire   2/3 scenarios passed: not claimed\n');
    const summary = JSON.parse(readFileSync(join(reports, 'conformance-summary.json'), 'utf8')) as { requirements: Array<{ id: string }> };
    expect(summary.requirements.find((verdict) => verdict.id === 'CR-5.1')).toMatchObject({ passed: 1, failed: 0, notReached: 1 });
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 1 failed');
    const junit = readFileSync(join(reports, 'conformance.junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="credit402 conformance" time="[\d.]+" tests="3" skipped="0" failures="1" errors="0"/);
    expect(JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8'))).toHaveLength(1);
    expect(readFileSync(join(reports, 'conformance.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    expect(readFileSync(join(reports, 'target.log'), 'utf8')).toMatch(/fixture target listening on http:\/\/127\.0\.0\.1:\d+/);
  });

  it('exits 0 when every selected scenario passed, also with parallel workers', async () => {
    const { code, stdout } = await runFixture('--tags', 'not @CR-7.14', '--parallel', '2');
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed');
  });

  it('makes generated histories after a robust run against the same target: a target that serves no paid call gives them nothing to judge, which fails nothing', async () => {
    const { code, stdout, stderr } = await runFixture('--tags', 'not @CR-7.14', '--level', 'robust', '--history-seconds', '1', '--seed', '7');
    expect(code, stdout).toBe(0);
    expect(stderr).toContain('generated histories: seed 7, for 1 s');
    expect(stdout).toMatch(/\n {2}histories: not run: no paid call of the \d+ histories was served \(a 2xx with a successful payment-response\): nothing to judge \(not failed\)\n/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed');
    const summary = JSON.parse(readFileSync(join(reports, 'conformance-summary.json'), 'utf8')) as { history?: { outcome: string; seed: number } };
    expect(summary.history).toMatchObject({ outcome: 'not-run', seed: 7 });
    expect(readFileSync(join(reports, 'conformance.junit.xml'), 'utf8')).toMatch(/tests="3" skipped="1" failures="0"[\s\S]*<testcase classname="Generated histories \(the ledger model\)"[^>]*>\n {4}<skipped message="not run: no paid call/);
    expect(readFileSync(join(reports, 'conformance.html'), 'utf8')).toContain('data-level-card="histories"');
  });

  it('exits 2 before starting anything when no scenario matches', async () => {
    const { code, stderr } = await runFixture('--tags', '@CR-99.1');
    expect(code).toBe(2);
    expect(stderr).toContain('no scenario matches --tags "@CR-99.1"');
  });

  it('exits 2 with the reason when the target does not answer', async () => {
    const { code, stderr } = await runFixture('--target', 'http://127.0.0.1:9');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--target http:\/\/127\.0\.0\.1:9 does not answer/);
  });
});
