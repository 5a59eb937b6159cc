// The bench's performance targets and their verdicts against one run's figures.
import type { ConformanceResult } from './conformance.ts';
import { floorTargets } from './floor-targets.ts';
import type { GatewayResult } from './gateway/gateway-bench.ts';
import { gatewayTargets } from './gateway/gateway-targets.ts';
import type { HotPathResult } from './hot-path.ts';
import type { FreeAppCost } from './express-free-micro.ts';
import type { IdleResult } from './idle.ts';
import { CONCLUSIVE_SOAK_S, type SoakResult } from './soak.ts';
import { expressFreeTargets, idleTargets } from './table-background.ts';

/** RSS growth over the soak, in MB. */
const SOAK_GROWTH_TARGET_MB = 50;
/** Wall time of a full conformance run, in seconds. */
const CONFORMANCE_TARGET_S = 30;

/** One target with what was measured. */
export interface TargetVerdict {
  target: string;
  measured: string;
  verdict: 'met' | 'not met' | 'not measured';
}

function verdict(met: boolean): 'met' | 'not met' {
  return met ? 'met' : 'not met';
}

function soakTargets(soak: SoakResult | undefined, soakSeconds: number): TargetVerdict[] {
  if (soak === undefined) return [{ target: `RSS growth < ${SOAK_GROWTH_TARGET_MB} MB over ${soakSeconds || 60} s`, measured: 'skipped', verdict: 'not measured' }];
  const { store } = soak;
  const flagged = (unbounded: boolean): TargetVerdict['verdict'] => (soak.conclusive ? verdict(!unbounded) : 'not measured');
  const short = soak.conclusive ? '' : ` (soak too short to tell: ${soak.seconds} s < ${CONCLUSIVE_SOAK_S} s)`;
  return [
    {
      target: `${soak.config}: RSS growth < ${SOAK_GROWTH_TARGET_MB} MB over ${soak.seconds} s`,
      measured: `${soak.growthMB.toFixed(1)} MB (${soak.rssStartMB} → ${soak.rssEndMB} MB, ${soak.requests} requests)`,
      verdict: verdict(soak.growthMB < SOAK_GROWTH_TARGET_MB),
    },
    {
      target: `${soak.config}: RSS not climbing steadily over the soak's second half`,
      measured: `${soak.rssTrend.perMinute} MB/min (r² ${soak.rssTrend.r2}); heap ${soak.heapTrend.perMinute} MB/min (r² ${soak.heapTrend.r2})${short}`,
      verdict: flagged(soak.rssTrend.unbounded),
    },
    {
      target: `${soak.config}: store size bounded over the soak (${store.kind})`,
      measured: `${store.recordsStart} → ${store.recordsEnd} log records, ${store.recordsPerRequest} per paid request over the second half${short}`,
      verdict: flagged(store.trend.unbounded),
    },
  ];
}

/** Verdicts for every target the run measured (and the others marked as not measured). */
export function evaluateTargets(
  hotPaths: HotPathResult[],
  soak: SoakResult | undefined,
  conformance: ConformanceResult | undefined,
  soakSeconds: number,
  background: { expressFree?: FreeAppCost[] | undefined; idle?: IdleResult[] | undefined; gateway?: GatewayResult | undefined } = {},
): TargetVerdict[] {
  const verdicts: TargetVerdict[] = floorTargets(hotPaths);
  verdicts.push(...expressFreeTargets(background.expressFree), ...idleTargets(background.idle), ...gatewayTargets(background.gateway));
  // The floors' ratios replaced the earlier gated/ungated ratios and the absolute p99 bound (issue 16): both moved
  // with the load generator's share of the cores, which a floor measured in the same rounds cancels out.
  verdicts.push(...soakTargets(soak, soakSeconds));
  const conformanceTarget = `full conformance run < ${CONFORMANCE_TARGET_S} s`;
  if (conformance === undefined) verdicts.push({ target: conformanceTarget, measured: 'skipped', verdict: 'not measured' });
  else if (conformance.status === 'passed') {
    verdicts.push({ target: conformanceTarget, measured: `${conformance.seconds.toFixed(1)} s`, verdict: verdict(conformance.seconds < CONFORMANCE_TARGET_S) });
  } else {
    const after = conformance.seconds === undefined ? '' : ` after ${conformance.seconds.toFixed(1)} s`;
    verdicts.push({ target: conformanceTarget, measured: `not available (${conformance.reason}${after})`, verdict: 'not measured' });
  }
  return verdicts;
}
