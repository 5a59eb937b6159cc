// Smoke test of `npm run bench`: a --quick run of one configuration prints the table and writes a well-formed JSON report.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'credit402-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

describe('npm run bench --quick', () => {
  it('measures one configuration and reports the table and the JSON (shape only, no timing thresholds)', async () => {
    const out = join(dir, 'bench.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=credit402-source', '--import', 'tsx', 'bench/run-bench.ts', '--quick', '--duration', '0.5', '--warmup', '0', '--only', 'fastify-memory', '--payments', '10', '--soak', '1', '--out', out],
      { cwd: ROOT, timeout: 25_000 },
    );

    expect(stdout).toMatch(/^## credit402 bench — /m);
    expect(stdout).toMatch(/\d+ cores \(/);
    expect(stdout).toContain('| config | ungated req/s |');
    expect(stdout).toMatch(/^\| fastify-memory \| \d+ \|/m);
    expect(stdout).toContain('### First payment');
    expect(stdout).toContain('### Soak');
    expect(stdout).toContain('| target | measured | verdict |');
    expect(stdout).toContain(`JSON report: ${out}`);

    const report = JSON.parse(readFileSync(out, 'utf8')) as BenchReport;
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(report.machine.node).toBe(process.version);
    expect(report.options).toMatchObject({ quick: true, configs: ['fastify-memory'], conformance: false });
    expect(report.skipped).toEqual([]);
    expect(report.hotPath).toHaveLength(1);
    const [hot] = report.hotPath;
    expect(hot).toMatchObject({ config: 'fastify-memory', framework: 'fastify', store: 'memory', failures: 0 });
    for (const route of [hot?.ungated, hot?.gated]) {
      expect(route?.runs).toHaveLength(1);
      expect([route?.rps, route?.p50, route?.p99].every(isNumber)).toBe(true);
      expect(route?.runs[0]?.ok).toBeGreaterThan(0);
    }
    expect([hot?.ratio, hot?.rssBeforeMB, hot?.rssAfterMB, hot?.gated.serverCpuUs].every(isNumber)).toBe(true);
    expect(report.firstPayment?.throughGate).toMatchObject({ count: 10, failures: 0 });
    expect(isNumber(report.firstPayment?.throughGate.callerCpuMs)).toBe(true);
    expect(report.firstPayment?.processorAlone.failures).toBe(0);
    expect(report.firstPayment?.emulatorPaymentIntent.failures).toBe(0);
    expect(report.soak).toMatchObject({ config: 'fastify-memory', seconds: 1, failures: 0 });
    expect(isNumber(report.soak?.growthMB)).toBe(true);
    expect(report.conformance).toBeUndefined();
    expect(report.targets.map((target) => target.verdict).every((v) => ['met', 'missed', 'not measured'].includes(v))).toBe(true);
    expect(report.targets.find((target) => target.target.startsWith('full conformance run'))?.verdict).toBe('not measured');
  }, 30_000);
});
