// The bench's sections on work besides the paid request: free requests through Express in process, and idle CPU per store.
import { FREE_APPS, type FreeAppCost } from './express-free-micro.ts';
import { IDLE_CPU_TARGET_PERCENT, type IdleResult } from './idle.ts';
import type { HotPathResult } from './hot-path.ts';
import { signed, table } from './markdown.ts';
import type { PaidStages } from './paid-stages.ts';
import type { TargetVerdict } from './targets.ts';

/** CPU µs per free request a credit402 Express form may add over bare Express, measured in the same rounds. */
export const EXPRESS_FREE_ADDED_US_TARGET = 3;

const verdict = (met: boolean): TargetVerdict['verdict'] => (met ? 'met' : 'not met');

/** The in-process Express section: each app's CPU per free request and what it adds over bare Express. */
export function expressFreeLines(costs: readonly FreeAppCost[], perRound: number, rounds: number): string[] {
  return [
    '',
    `### Free requests through Express, in process: \`GET /free\` handed to the app as node:http would, no sockets (${perRound} requests × ${rounds} interleaved rounds, medians)`,
    '',
    ...table(['app', 'CPU µs/free req', 'added over bare Express (paired median)'], costs.map((cost) => [cost.name, cost.cpuUs.toFixed(2), signed(cost.addedUs, 2)])),
  ];
}

/** The idle section: each store's reference server left alone, its CPU as % of one core. */
export function idleLines(results: readonly IdleResult[]): string[] {
  return [
    '',
    `### Idle CPU: the reference server (Fastify) on each store, no requests, over ${results[0]?.seconds ?? 0} s (all at once, 3 s after start; memory also with the embedded emulator and its scheduled reconciliation)`,
    '',
    ...table(['config', 'CPU ms over the window', '% of one core'], results.map((result) => [result.config, (result.cpuUs / 1000).toFixed(1), result.percent.toFixed(3)])),
  ];
}

/** Verdicts of the free-request targets: each credit402 form adds ≤ 3 µs over bare Express. */
export function expressFreeTargets(costs: readonly FreeAppCost[] | undefined): TargetVerdict[] {
  const forms = [FREE_APPS.table, FREE_APPS.guard];
  return forms.map((name) => {
    const target = `Express, free request: ${name} adds ≤ ${EXPRESS_FREE_ADDED_US_TARGET} µs CPU over bare Express (in process)`;
    const cost = costs?.find((one) => one.name === name);
    if (cost === undefined) return { target, measured: 'skipped', verdict: 'not measured' };
    const noop = costs?.find((one) => one.name === FREE_APPS.noop);
    const layer = noop === undefined ? '' : `; a no-op middleware adds ${signed(noop.addedUs, 2)}`;
    return { target, measured: `${signed(cost.addedUs, 2)} µs (${cost.cpuUs.toFixed(2)} µs/req${layer})`, verdict: verdict(cost.addedUs <= EXPRESS_FREE_ADDED_US_TARGET) };
  });
}

/** Verdicts of the idle targets: ≤ 1 % of one core per store. */
export function idleTargets(results: readonly IdleResult[] | undefined): TargetVerdict[] {
  if (results === undefined) return [{ target: `idle reference server ≤ ${IDLE_CPU_TARGET_PERCENT} % of one core`, measured: 'skipped', verdict: 'not measured' }];
  return results.map((result) => ({
    target: `${result.config} idle: ≤ ${IDLE_CPU_TARGET_PERCENT} % of one core`,
    measured: `${result.percent.toFixed(3)} % (${(result.cpuUs / 1000).toFixed(1)} ms CPU in ${result.seconds} s)`,
    verdict: verdict(result.percent <= IDLE_CPU_TARGET_PERCENT),
  }));
}

/**
 * The stage breakdown of a paid request on memory: the in-process stages, and beside them, when fastify-memory ran
 * beside its floor, the reference's and the floor's server CPU over HTTP (the same request with sockets and the kernel).
 */
export function paidStageLines(stages: PaidStages, perRound: number, rounds: number, hotPaths: readonly HotPathResult[]): string[] {
  const http = hotPaths.find((result) => result.config === 'fastify-memory' && result.floor !== undefined);
  const httpRows: Array<Array<string | number>> = http?.floor === undefined ? [] : [
    ['over HTTP: the reference (fastify-memory) − its floor (hot path above, server CPU)', signed(http.floor.addedCpuUs, 1), `${http.gated.serverCpuUs} − ${http.floor.paid.serverCpuUs} µs`],
  ];
  const variants = Object.entries(stages.variants).map(([name, cpuUs]) => `${name} ${cpuUs.toFixed(2)}`).join('; ');
  return [
    '',
    `### A paid request on memory, stage by stage: CPU µs per paid request, in process, 50 in flight (${perRound} requests × ${rounds} interleaved rounds, paired medians)`,
    '',
    ...table(['stage', 'CPU µs/paid req', 'measured as'], [
      ...stages.stages.map((stage) => [stage.stage, stage.cpuUs.toFixed(2), 'in process']),
      ...httpRows,
    ]),
    '',
    `Variants (µs per paid request): ${variants}.`,
  ];
}
