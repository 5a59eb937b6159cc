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
  it('measures one configuration beside its floor, the gateway and a soak, and reports the table and the JSON (shape only, no timing thresholds)', async () => {
    const out = join(dir, 'bench.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=credit402-source', '--import', 'tsx', 'bench/run-bench.ts', '--quick', '--duration', '0.5', '--warmup', '0', '--only', 'fastify-memory', '--payments', '10', '--soak', '1', '--idle', '1', '--express-free', '500', '--stages', '500', '--out', out],
      { cwd: ROOT, timeout: 150_000 },
    );

    expect(stdout).toMatch(/^## credit402 bench — /m);
    expect(stdout).toMatch(/\d+ cores \(/);
    expect(stdout).toContain('| config | ungated req/s |');
    expect(stdout).toMatch(/^\| fastify-memory \| \d+ \|/m);
    expect(stdout).toContain('### Against the floors');
    expect(stdout).toMatch(/^\| fastify-memory \| floor-fastify-memory \| \d+ → \d+ \|/m);
    expect(stdout).toContain('### Free routes: ungated `GET /free`');
    expect(stdout).toMatch(/^\| fastify-memory \| floor-fastify-memory \/free \| \d+ → \d+ \|/m);
    expect(stdout).toContain('### Free requests through Express, in process');
    expect(stdout).toContain('### A paid request on memory, stage by stage');
    expect(stdout).toContain('### Idle CPU');
    expect(stdout).toMatch(/^\| fastify-memory-embedded \| \d+\.\d \| \d+\.\d{3} \|/m);
    expect(stdout).toContain('### Gateway: paid');
    expect(stdout).toMatch(/^\| `credit402 gateway`, memory .* \| \d+ \|/m);
    expect(stdout).toMatch(/^\| gate-proxy floor: .* \| \d+ \|/m);
    expect(stdout).toMatch(/^\| @fastify\/http-proxy, ungated.* \| \d+ \|/m);
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
    expect(hot?.floor).toMatchObject({ floor: 'floor-fastify-memory', failures: 0 });
    expect(hot?.floor?.paid.runs).toHaveLength(1);
    expect([hot?.floor?.paid.rps, hot?.floor?.paid.p99, hot?.floor?.paid.serverCpuUs, hot?.floor?.rpsRatio, hot?.floor?.addedCpuUs, hot?.floor?.p99Ratio].every(isNumber)).toBe(true);
    expect(hot?.floor?.unqueued.server.runs).toHaveLength(1);
    expect([hot?.floor?.unqueued.server.p99, hot?.floor?.unqueued.floor.p99, hot?.floor?.unqueued.p99Ratio].every(isNumber)).toBe(true);
    expect([hot?.floor?.free?.bare.serverCpuUs, hot?.floor?.free?.addedCpuUs, hot?.floor?.free?.rpsRatio].every(isNumber)).toBe(true);
    expect(report.expressFree?.map((cost) => cost.name)).toHaveLength(8);
    expect(report.expressFree?.every((cost) => isNumber(cost.cpuUs) && isNumber(cost.addedUs))).toBe(true);
    expect(report.paidStages?.stages).toHaveLength(5);
    expect(report.paidStages?.stages.every((stage) => isNumber(stage.cpuUs))).toBe(true);
    expect(report.idle?.map((result) => result.config)).toEqual(expect.arrayContaining(['fastify-memory', 'fastify-sqlite', 'fastify-memory-embedded']));
    expect(report.idle?.every((result) => isNumber(result.percent) && result.cpuUs >= 0)).toBe(true);
    expect(report.gateway).toMatchObject({ store: 'memory', failures: { gateway: 0, floor: 0, httpProxy: 0, upstream: 0, plugin: 0 } });
    for (const leg of [report.gateway?.gateway, report.gateway?.floor, report.gateway?.httpProxy, report.gateway?.upstream, report.gateway?.plugin]) {
      expect([leg?.rps, leg?.p99, leg?.serverCpuUs].every(isNumber)).toBe(true);
      expect(leg?.runs[0]?.ok).toBeGreaterThan(0);
    }
    expect([report.gateway?.gatewayVsUpstream.rps, report.gateway?.gatewayVsPlugin.p99].every(isNumber)).toBe(true);
    const vs = [report.gateway?.gatewayVsHttpProxy, report.gateway?.gatewayVsFloor];
    expect(vs.flatMap((ratio) => [ratio?.rps, ratio?.p99, ratio?.addedCpuUs]).every(isNumber)).toBe(true);
    expect([report.gateway?.unqueued.server.p99, report.gateway?.unqueued.p99Ratio].every(isNumber)).toBe(true);
    const gatewayTargets = report.targets.filter((target) => target.target.startsWith('gateway (memory): '));
    expect(gatewayTargets).toHaveLength(3);
    expect(gatewayTargets.every((target) => target.verdict === 'met' || target.verdict === 'not met')).toBe(true);
    expect(report.firstPayment?.throughGate).toMatchObject({ count: 10, failures: 0 });
    expect(isNumber(report.firstPayment?.throughGate.callerCpuMs)).toBe(true);
    expect(report.firstPayment?.processorAlone.failures).toBe(0);
    expect(report.firstPayment?.emulatorPaymentIntent.failures).toBe(0);
    expect(report.soak).toMatchObject({ config: 'fastify-memory', seconds: 1, conclusive: false, failures: 0 });
    expect([report.soak?.growthMB, report.soak?.rssTrend.perMinute, report.soak?.heapTrend.r2].every(isNumber)).toBe(true);
    expect(report.soak?.store).toMatchObject({ kind: 'memory', creditRetentionMs: null, trend: { unbounded: false } });
    expect(report.soak?.store.recordsEnd).toBeGreaterThan(0);
    expect(report.soak?.store.retention).toContain('maxTransactionsPerClient');
    expect(report.soak?.samples.length).toBeGreaterThanOrEqual(2);
    expect(report.conformance).toBeUndefined();
    expect(report.targets.map((target) => target.verdict).every((v) => ['met', 'not met', 'not measured'].includes(v))).toBe(true);
    const floorTargets = report.targets.filter((target) => target.target.startsWith('fastify-memory: paid req/s ≥ 0.9× the floor') || target.target.startsWith('fastify-memory: p99 ≤ 1.2× the floor\'s p99, one request at a time'));
    expect(floorTargets.map((target) => target.verdict).every((v) => v === 'met' || v === 'not met')).toBe(true);
    expect(floorTargets).toHaveLength(2);
    expect(report.targets.find((target) => target.target.includes('store size bounded'))?.verdict).toBe('not measured');
    expect(report.targets.find((target) => target.target.startsWith('full conformance run'))?.verdict).toBe('not measured');
  }, 160_000);
});
