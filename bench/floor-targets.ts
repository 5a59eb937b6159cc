// Issue 16's targets, as ratios against each configuration's floor measured in the same rounds (never absolute timings).
import type { HotPathResult } from './hot-path.ts';
import type { StoreKind } from './options.ts';
import type { TargetVerdict } from './targets.ts';

/** Paid req/s of the reference on Fastify over its floor's, at least. SQLite's floor is the naive one (one autocommit per request). */
export const FLOOR_RPS_TARGETS: Record<StoreKind, number> = { memory: 0.9, sqlite: 1.0, redis: 0.9, postgres: 0.9 };
/** Server CPU µs per paid request the Express adapter may add over the bare Express + memory floor. */
export const EXPRESS_ADDED_US_TARGET = 10;
/** Server CPU µs per ungated `GET /free` the reference may add over the same route on the bare framework. */
export const FREE_ADDED_US_TARGETS: Record<'express' | 'fastify', number> = { express: 3, fastify: 4 };
/** Reference p99 over floor p99, each loaded one request at a time (issue 38: 1.2×; was 1.5× at saturation), at most. */
export const FLOOR_P99_RATIO_TARGET = 1.2;

const verdict = (met: boolean): TargetVerdict['verdict'] => (met ? 'met' : 'not met');

/** The floor targets of every configuration that ran beside a floor. */
export function floorTargets(hotPaths: HotPathResult[]): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  for (const result of hotPaths) {
    const floor = result.floor;
    if (floor === undefined) continue;
    if (result.framework === 'fastify') {
      const goal = FLOOR_RPS_TARGETS[result.store as StoreKind] ?? 1;
      const naive = result.store === 'sqlite' ? ' naive' : '';
      verdicts.push({
        target: `${result.config}: paid req/s ≥ ${goal.toFixed(1)}× the${naive} floor's`,
        measured: `${floor.rpsRatio.toFixed(2)}× (${result.gated.rps} vs ${floor.paid.rps} req/s)`,
        verdict: verdict(floor.rpsRatio >= goal),
      });
    } else {
      verdicts.push({
        target: `${result.config}: adds ≤ ${EXPRESS_ADDED_US_TARGET} µs server CPU per paid request over ${floor.floor}`,
        measured: `+${floor.addedCpuUs.toFixed(1)} µs (${result.gated.serverCpuUs} vs ${floor.paid.serverCpuUs} µs)`,
        verdict: verdict(floor.addedCpuUs <= EXPRESS_ADDED_US_TARGET),
      });
    }
    if (floor.free !== undefined && result.ungated !== undefined) {
      const goal = FREE_ADDED_US_TARGETS[result.framework as 'express' | 'fastify'] ?? 0;
      verdicts.push({
        target: `${result.config}: ungated \`GET /free\` adds ≤ ${goal} µs server CPU over bare ${result.framework === 'express' ? 'Express' : 'Fastify'}`,
        measured: `${floor.free.addedCpuUs >= 0 ? '+' : ''}${floor.free.addedCpuUs.toFixed(1)} µs (${result.ungated.serverCpuUs} vs ${floor.free.bare.serverCpuUs} µs)`,
        verdict: verdict(floor.free.addedCpuUs <= goal),
      });
    }
    const { unqueued } = floor;
    verdicts.push({
      target: `${result.config}: p99 ≤ ${FLOOR_P99_RATIO_TARGET}× the floor's p99, one request at a time`,
      measured: `${unqueued.p99Ratio.toFixed(2)}× (${unqueued.server.p99.toFixed(2)} vs ${unqueued.floor.p99.toFixed(2)} ms; at saturation ${floor.p99Ratio.toFixed(2)}×)`,
      verdict: verdict(unqueued.p99Ratio <= FLOOR_P99_RATIO_TARGET),
    });
  }
  return verdicts;
}
