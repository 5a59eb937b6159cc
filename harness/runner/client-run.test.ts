// End-to-end tests of `credit402-conformance client`: the whole client suite against the kit's fake driver, and drivers that fail.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { afterAll, describe, expect, it } from 'vitest';
import { childNodeOptions, ROOT } from './paths.ts';
import { childOutput } from './fixtures/child-output.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-client-run-test-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

const FAKE_DRIVER_FILE = 'harness/client/fixtures/fetch-driver.mjs';
const FAKE_DRIVER = `node ${FAKE_DRIVER_FILE}`;

/** Runs the kit's command line with `client` and these arguments; resolves to its exit code and output. */
function runClient(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...childNodeOptions(), 'harness/cli.ts', 'client', '--reports', reports, ...args], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return childOutput(child);
}

describe('credit402-conformance client', () => {
  it('claims every level for a correct client that declares everything, in a few seconds', async () => {
    const started = Date.now();
    const { code, stdout } = await runClient('--client-cmd', FAKE_DRIVER, '--declare', 'robustness=true', '--declare', 'capabilities=spending-limit');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(stdout).toMatch(/levels:\n {2}wire {3}\d+\/\d+ scenarios passed: claimed\n {2}strict \d+\/\d+ scenarios passed: claimed\n {2}robust \d+\/\d+ scenarios passed: claimed\n/);
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(reports, 'client-conformance-summary.json'), 'utf8')) as { mode: string; requirements: Array<{ id: string }> };
    expect(summary.mode).toBe('client');
    expect(summary.requirements.map((verdict) => verdict.id)).toEqual(Array.from({ length: 17 }, (_, index) => `CR-16.${index + 1}`));
    expect(readFileSync(join(reports, 'client-conformance.junit.xml'), 'utf8')).toContain('<testsuite name="credit402 client conformance"');
    expect(readFileSync(join(reports, 'client-conformance.html'), 'utf8')).toContain('credit402 client conformance report');
  }, 30_000);

  it('runs the undeclared capabilities and the robust level as not run', async () => {
    const { code, stdout } = await runClient('--client-cmd', FAKE_DRIVER, '--tags', '@CR-16.11 or @CR-16.17 or @CR-16.15');
    expect(code).toBe(0);
    expect(stdout).toContain('1 scenario: not run: capability not declared: spending-limit');
    expect(stdout).toContain('1 scenario: not run: robust level: the driver does not declare the robustness profile');
  }, 30_000);

  it('fails the run with an error naming the driver when it breaks the contract', async () => {
    const driver = `node -e "require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => { const i = JSON.parse(l); console.log(JSON.stringify(i.op === 'fetch' ? { id: i.id, results: 'none' } : { id: i.id, ok: true })); })"`;
    const { code, stdout, stderr } = await runClient('--client-cmd', driver, '--tags', '@CR-16.15 or @CR-16.7');
    expect(code).toBe(1);
    expect(stderr).toMatch(/run error: the driver `node -e .*` sent a malformed reply to fetch #\d+: results must be an array/);
    expect(stdout).toMatch(/1 scenario: not run: the driver `.*` sent a malformed reply/);
    expect(stdout).toMatch(/1 scenario: not run: the driver failed earlier in the run/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 0 failed');
    const summary = JSON.parse(readFileSync(join(reports, 'client-conformance-summary.json'), 'utf8')) as { runErrors: string[] };
    expect(summary.runErrors).toEqual([expect.stringMatching(/malformed reply to fetch/)]);
  }, 30_000);

  it('judges what a driver reports its callback received as given: an amount "500" fails CR-16.1, not the run', async () => {
    const reported = `node -e "const c = require('node:child_process').spawn(process.execPath, ['${FAKE_DRIVER_FILE}'], { stdio: ['inherit', 'pipe', 'inherit'] }); require('node:readline').createInterface({ input: c.stdout }).on('line', (l) => { const r = JSON.parse(l); for (const a of r.callbacks || []) a.amount = String(a.amount); console.log(JSON.stringify(r)); }); c.on('exit', (code) => process.exit(code));"`;
    const { code, stdout } = await runClient('--client-cmd', reported, '--tags', '@CR-16.1 or @CR-16.15');
    expect(code).toBe(1);
    expect(stdout).toMatch(/failed: CR-16\.1 \[wire\]/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 1 failed');
    const summary = JSON.parse(readFileSync(join(reports, 'client-conformance-summary.json'), 'utf8')) as { runErrors: string[]; scenarios: Array<{ failedIds: string[]; message?: string }> };
    expect(summary.runErrors).toEqual([]);
    expect(summary.scenarios.flatMap((scenario) => scenario.failedIds)).toEqual(['CR-16.1']);
    expect(summary.scenarios.map((scenario) => scenario.message ?? '').join('')).toContain('"amount":"500"');
  }, 30_000);

  it('starts the scripted servers A and B on the ports --server-a-port and --server-b-port name', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const { code, stderr } = await runClient('--client-cmd', FAKE_DRIVER, '--tags', '@CR-16.15', '--server-a-port', String(a), '--server-b-port', String(b));
    expect(code).toBe(0);
    expect(stderr).toContain(`scripted server at http://127.0.0.1:${a} (server A) and http://127.0.0.1:${b} (server B)`);
  }, 30_000);

  it('exits 2 with the driver\'s stderr when it does not start', async () => {
    const { code, stderr } = await runClient('--client-cmd', 'node -e "console.error(\'no client here\'); process.exit(4)"');
    expect(code).toBe(2);
    expect(stderr).toMatch(/the driver did not answer its first reset: the driver .* exited with code 4[\s\S]*\| no client here/);
  }, 30_000);
});
