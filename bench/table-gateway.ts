// The gateway section of the bench's markdown: paid requests through the gateway, its floor, @fastify/http-proxy, the upstream alone and the plugin.
import type { GatewayResult } from './gateway/gateway-bench.ts';
import { ms, signed, table } from './markdown.ts';
import type { RouteSummary } from './rounds.ts';

function line(name: string, summary: RouteSummary, failures: number | undefined): Array<string | number> {
  return [name, summary.rps, ms(summary.p50), ms(summary.p99), summary.serverCpuUs.toFixed(0), failures ?? 0];
}

/** The gateway table and its ratios. */
export function gatewayLines(g: GatewayResult, connections: number): string[] {
  const rows = [
    line(`\`credit402 gateway\`, ${g.store} → node:http upstream (gateway process)`, g.gateway, g.failures.gateway),
    ...(g.baseline === undefined ? [] : [line(`\`credit402 gateway\` of --gateway-baseline, ${g.store} (gateway process)`, g.baseline, g.failures.baseline)]),
    line('gate-proxy floor: node:http proxy, one Map deduction per paid request (proxy process)', g.floor, g.failures.floor),
    line('@fastify/http-proxy, ungated, nothing deducted (proxy process)', g.httpProxy, g.failures.httpProxy),
    line('node:http upstream alone, no gate (upstream process)', g.upstream, g.failures.upstream),
    line(`reference server, Fastify plugin in process, ${g.store} (server process)`, g.plugin, g.failures.plugin),
  ];
  const baseline = g.gatewayVsBaseline === undefined
    ? []
    : [`Gateway/baseline: ${g.gatewayVsBaseline.rps.toFixed(2)}× req/s, ${signed(g.gatewayVsBaseline.addedCpuUs, 1)} µs CPU, ${g.gatewayVsBaseline.p99.toFixed(2)}× p99.`];
  return [
    '',
    `### Gateway: paid \`GET /api/nodesc\` through \`credit402 gateway\` (${g.store} store) vs its floor, @fastify/http-proxy, the upstream alone and the in-process plugin (${connections} connections)`,
    '',
    ...table(['path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req of the process', 'failures'], rows),
    '',
    `Gateway/@fastify/http-proxy: ${g.gatewayVsHttpProxy.rps.toFixed(2)}× req/s, ${signed(g.gatewayVsHttpProxy.addedCpuUs, 1)} µs CPU, ${g.gatewayVsHttpProxy.p99.toFixed(2)}× p99. ` +
      `Gateway/floor: ${g.gatewayVsFloor.rps.toFixed(2)}× req/s, ${signed(g.gatewayVsFloor.addedCpuUs, 1)} µs CPU, ${g.gatewayVsFloor.p99.toFixed(2)}× p99. ` +
      `Gateway/upstream: ${g.gatewayVsUpstream.rps.toFixed(2)}× req/s. Gateway/plugin: ${g.gatewayVsPlugin.rps.toFixed(2)}× req/s, ${g.gatewayVsPlugin.p99.toFixed(2)}× p99 ` +
      '(medians of the per-round ratios and CPU differences, at saturation).',
    `One request at a time (one connection each, no queue): gateway p99 ${ms(g.unqueued.server.p99)} ms, floor ${ms(g.unqueued.floor.p99)} ms, ` +
      `${g.unqueued.p99Ratio.toFixed(2)}× (p50 ${ms(g.unqueued.server.p50)} vs ${ms(g.unqueued.floor.p50)} ms).`,
    ...baseline,
  ];
}
