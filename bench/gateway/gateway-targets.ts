// Issue 38's gateway targets, as ratios and differences against legs measured in the same rounds (never absolute timings).
import type { TargetVerdict } from '../targets.ts';
import type { GatewayResult } from './gateway-bench.ts';

/** Paid req/s through the gateway over an ungated @fastify/http-proxy's, at least. */
export const GATEWAY_RPS_TARGET = 0.9;
/** Server CPU µs per paid request the gateway may spend over the gate-proxy floor's. */
export const GATEWAY_ADDED_US_TARGET = 30;
/** The gateway's p99 over the gate-proxy floor's, each loaded one request at a time, at most. */
export const GATEWAY_P99_RATIO_TARGET = 1.2;

const verdict = (met: boolean): TargetVerdict['verdict'] => (met ? 'met' : 'not met');

/** The gateway's three targets; none when the gateway was not measured. */
export function gatewayTargets(g: GatewayResult | undefined): TargetVerdict[] {
  if (g === undefined) return [];
  const added = g.gatewayVsFloor.addedCpuUs;
  return [
    {
      target: `gateway (${g.store}): paid req/s ≥ ${GATEWAY_RPS_TARGET}× an ungated @fastify/http-proxy's`,
      measured: `${g.gatewayVsHttpProxy.rps.toFixed(2)}× (${g.gateway.rps} vs ${g.httpProxy.rps} req/s)`,
      verdict: verdict(g.gatewayVsHttpProxy.rps >= GATEWAY_RPS_TARGET),
    },
    {
      target: `gateway (${g.store}): server CPU per paid request ≤ the gate-proxy floor's + ${GATEWAY_ADDED_US_TARGET} µs`,
      measured: `${added >= 0 ? '+' : ''}${added.toFixed(1)} µs (${g.gateway.serverCpuUs} vs ${g.floor.serverCpuUs} µs)`,
      verdict: verdict(added <= GATEWAY_ADDED_US_TARGET),
    },
    {
      target: `gateway (${g.store}): p99 ≤ ${GATEWAY_P99_RATIO_TARGET}× the gate-proxy floor's p99, one request at a time`,
      measured: `${g.unqueued.p99Ratio.toFixed(2)}× (${g.unqueued.server.p99.toFixed(2)} vs ${g.unqueued.floor.p99.toFixed(2)} ms; at saturation ${g.gatewayVsFloor.p99.toFixed(2)}×)`,
      verdict: verdict(g.unqueued.p99Ratio <= GATEWAY_P99_RATIO_TARGET),
    },
  ];
}
