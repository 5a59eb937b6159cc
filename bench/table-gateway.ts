// The gateway section of the bench's markdown: paid requests through the gateway, to the upstream alone, and through the plugin.
import type { GatewayResult } from './gateway/gateway-bench.ts';
import { ms, table } from './markdown.ts';
import type { RouteSummary } from './rounds.ts';

function line(name: string, summary: RouteSummary, failures: number): Array<string | number> {
  return [name, summary.rps, ms(summary.p50), ms(summary.p99), summary.serverCpuUs.toFixed(0), failures];
}

/** The gateway table and its ratios. */
export function gatewayLines(g: GatewayResult, connections: number): string[] {
  return [
    '',
    `### Gateway: paid \`GET /api/nodesc\` through \`credit402 gateway\` (${g.store} store) vs the upstream alone vs the in-process plugin (${connections} connections)`,
    '',
    ...table(['path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req of the process', 'failures'], [
      line('through the gateway → node:http upstream (gateway process)', g.gateway, g.failures.gateway),
      line('node:http upstream alone, no gate (upstream process)', g.upstream, g.failures.upstream),
      line(`reference server, Fastify plugin in process, ${g.store} (server process)`, g.plugin, g.failures.plugin),
    ]),
    '',
    `Gateway/upstream: ${g.gatewayVsUpstream.rps.toFixed(2)}× req/s, ${g.gatewayVsUpstream.p99.toFixed(2)}× p99. ` +
      `Gateway/plugin: ${g.gatewayVsPlugin.rps.toFixed(2)}× req/s, ${g.gatewayVsPlugin.p99.toFixed(2)}× p99 (medians of the per-round ratios).`,
  ];
}
