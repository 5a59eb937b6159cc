// The pure parts of the bench's issue-29 sections: options, idle percentages, paired differences, stages, targets and their tables.
import { describe, expect, it } from 'vitest';
import { FREE_APPS, freeAppCosts } from './express-free-micro.ts';
import { floorTargets } from './floor-targets.ts';
import type { HotPathResult } from './hot-path.ts';
import { idlePercent, idleServers } from './idle.ts';
import { parseBenchArgs, type BenchOptions } from './options.ts';
import { STAGES, stagesOf } from './paid-stages.ts';
import type { RouteSummary } from './rounds.ts';
import { expressFreeLines, expressFreeTargets, idleLines, idleTargets, paidStageLines } from './table-background.ts';

const options = (args: string[]): BenchOptions => parseBenchArgs(args) as BenchOptions;

const summary = (serverCpuUs: number, rps = 1000): RouteSummary => ({ rps, p50: 1, p99: 2, serverCpuUs, runs: [] });

describe('bench options of issue 29', () => {
  it('defaults, --quick presets and explicit values', () => {
    expect(options([])).toMatchObject({ expressFree: 2000, expressFreeRounds: 21, stages: 4000, stagesRounds: 11, idle: 20, idleServers: 0 });
    expect(options(['--quick'])).toMatchObject({ expressFree: 2000, expressFreeRounds: 5, stages: 1000, stagesRounds: 3, idle: 5, idleServers: 0 });
    expect(options(['--express-free', '0', '--stages', '0', '--idle', '0', '--idle-servers', '12'])).toMatchObject({ expressFree: 0, stages: 0, idle: 0, idleServers: 12 });
    expect(() => parseBenchArgs(['--idle-servers=-1'])).toThrow(/--idle-servers must be a number of at least 0/);
    expect(() => parseBenchArgs(['--stages', '1.5'])).toThrow(/--stages must be an integer/);
  });
});

describe('idle CPU', () => {
  it('is CPU µs over wall µs, in % of one core', () => {
    expect(idlePercent(200_000, 20)).toBe(1);
    expect(idlePercent(5_100, 20)).toBe(0.026);
    expect(idlePercent(10, 0)).toBeNaN();
  });

  it('watches every store, and memory once more with the embedded emulator', () => {
    expect(idleServers(['memory', 'redis']).map((one) => one.config)).toEqual(['fastify-memory', 'fastify-redis', 'fastify-memory-embedded']);
    expect(idleServers(['sqlite']).map((one) => one.embedded)).toEqual([false]);
  });

  it('renders the table and a verdict per store against 1 %', () => {
    const results = [
      { store: 'memory' as const, config: 'fastify-memory', seconds: 20, cpuUs: 5_100, percent: 0.026 },
      { store: 'redis' as const, config: 'fastify-redis', seconds: 20, cpuUs: 300_000, percent: 1.5 },
    ];
    expect(idleLines(results)).toContain('| fastify-memory | 5.1 | 0.026 |');
    expect(idleTargets(results).map((target) => target.verdict)).toEqual(['met', 'not met']);
    expect(idleTargets(undefined)).toEqual([expect.objectContaining({ verdict: 'not measured' })]);
  });
});

describe('free requests through Express', () => {
  it('takes each app\'s median and its median paired difference to bare Express', () => {
    const samples = new Map([
      [FREE_APPS.bare, [50, 60, 55]],
      [FREE_APPS.table, [52, 61, 58]],
    ]);
    expect(freeAppCosts(samples, FREE_APPS.bare)).toEqual([
      { name: FREE_APPS.bare, cpuUs: 55, addedUs: 0 },
      { name: FREE_APPS.table, cpuUs: 58, addedUs: 2 },
    ]);
  });

  it('judges both credit402 forms against 3 µs and renders the table', () => {
    const costs = [
      { name: FREE_APPS.bare, cpuUs: 55, addedUs: 0 },
      { name: FREE_APPS.noop, cpuUs: 57, addedUs: 2 },
      { name: FREE_APPS.table, cpuUs: 57.5, addedUs: 2.5 },
      { name: FREE_APPS.guard, cpuUs: 59, addedUs: 4 },
    ];
    const verdicts = expressFreeTargets(costs);
    expect(verdicts.map((target) => target.verdict)).toEqual(['met', 'not met']);
    expect(verdicts[0]?.measured).toBe('+2.50 µs (57.50 µs/req; a no-op middleware adds +2.00)');
    expect(expressFreeTargets(undefined).map((target) => target.verdict)).toEqual(['not measured', 'not measured']);
    expect(expressFreeLines(costs, 2000, 21)).toContain(`| ${FREE_APPS.guard} | 59.00 | +4.00 |`);
  });

  it('judges the reference\'s ungated route against the bare framework\'s over HTTP', () => {
    const hot = (framework: 'express' | 'fastify', added: number): HotPathResult => ({
      config: `${framework}-memory`, framework, store: 'memory', ungated: summary(100 + added), gated: summary(150),
      floor: { floor: `floor-${framework}-memory`, paid: summary(140), rpsRatio: 1, addedCpuUs: 10, p99Ratio: 1,
        unqueued: { server: summary(150), floor: summary(140), p99Ratio: 1 }, failures: 0, free: { bare: summary(100), addedCpuUs: added, rpsRatio: 1 } },
      rssBeforeMB: 1, rssAfterMB: 1, failures: 0,
    });
    const free = (result: HotPathResult) => floorTargets([result]).filter((target) => target.target.includes('GET /free'));
    expect(free(hot('express', 2.5))).toEqual([expect.objectContaining({ verdict: 'met', target: expect.stringContaining('≤ 3 µs server CPU over bare Express') })]);
    expect(free(hot('express', 3.5))[0]?.verdict).toBe('not met');
    expect(free(hot('fastify', 3.5))).toEqual([expect.objectContaining({ verdict: 'met', target: expect.stringContaining('≤ 4 µs server CPU over bare Fastify') })]);
  });
});

describe('a paid request stage by stage', () => {
  it('derives each stage from the variants measured in the same rounds', () => {
    const samples = new Map([
      ['engine', [8, 9]],
      ['engine without a log', [7, 8]],
      ['header', [1, 1]],
      ['floor (inject)', [40, 42]],
      ['engine in a bare route (inject)', [52, 54]],
      ['reference app (inject)', [54, 57]],
    ]);
    const { stages, variants } = stagesOf(samples);
    expect(variants.engine).toBe(8.5);
    expect(stages).toEqual([
      { stage: STAGES.engine, cpuUs: 8.5 },
      { stage: STAGES.record, cpuUs: 1 },
      { stage: STAGES.header, cpuUs: 1 },
      { stage: STAGES.engineInRoute, cpuUs: 12 },
      { stage: STAGES.hooks, cpuUs: 2.5 },
    ]);
    const lines = paidStageLines({ stages, variants }, 4000, 11, []);
    expect(lines).toContain(`| ${STAGES.hooks} | 2.50 | in process |`);
    expect(lines.some((line) => line.startsWith('Variants (µs per paid request): engine 8.50;'))).toBe(true);
  });
});
