// Renders a bench report as markdown: the machine, the hot path, the floors, the gateway, payments, soak, targets.
import type { PaymentRate } from './first-payment.ts';
import { ms, table } from './markdown.ts';
import type { BenchReport } from './report.ts';
import type { RouteSummary } from './rounds.ts';
import { floorLines } from './table-floors.ts';
import { gatewayLines } from './table-gateway.ts';
import { expressFreeLines, idleLines, paidStageLines } from './table-background.ts';
import { soakLines } from './table-soak.ts';

function cpu(ungated: RouteSummary | undefined, gated: RouteSummary): string {
  if (ungated === undefined) return `– → ${gated.serverCpuUs.toFixed(0)}${gated.redisCpuUs === undefined ? '' : `; Redis – → ${gated.redisCpuUs.toFixed(0)}`}`;
  const server = `${ungated.serverCpuUs.toFixed(0)} → ${gated.serverCpuUs.toFixed(0)} (+${(gated.serverCpuUs - ungated.serverCpuUs).toFixed(0)})`;
  if (ungated.redisCpuUs === undefined || gated.redisCpuUs === undefined) return server;
  return `${server}; Redis ${ungated.redisCpuUs.toFixed(0)} → ${gated.redisCpuUs.toFixed(0)}`;
}

function paymentRow(name: string, rate: PaymentRate): Array<string | number> {
  const failures = rate.failures === 0 ? '0' : `${rate.failures} (${rate.firstFailure ?? ''})`;
  return [name, rate.count, rate.concurrency, rate.perSecond.toFixed(1), ms(rate.p50), ms(rate.p99), ms(rate.callerCpuMs), ms(rate.emulatorCpuMs), failures];
}

function header(report: BenchReport): string[] {
  const { machine, options } = report;
  return [
    `## credit402 bench — ${report.startedAt}`,
    '',
    `${machine.cores} cores (${machine.cpuModel}), Node ${machine.node}, ${machine.platform}, ${machine.totalMemoryGB} GB, load average ${machine.loadAverage} at start. ` +
      `${options.duration} s per measurement × ${options.repetitions} interleaved repetitions (median), ${options.connections} connections, ${options.warmup} s warm-up per route; ` +
      'each server and floor in its own process, load generator (autocannon) in the bench process, all on loopback' +
      `${options.idleServers > 0 ? `; ${options.idleServers} more reference servers (fastify-memory) up and idle during the hot path` : ''}. ` +
      "Server CPU µs/req is the server process's user + system time per request (kernel TCP work included); on a 2-core machine it shows " +
      "the gate's cost better than req/s, which the load generator and Redis share the cores for.",
  ];
}

/** The whole report as markdown lines. */
export function renderTable(report: BenchReport): string {
  const lines: string[] = [
    ...header(report),
    '',
    '### Hot path: ungated `GET /free` vs gated `GET /api/nodesc` paid by clientId (1 unit)',
    '',
    ...table(
      ['config', 'ungated req/s', 'ungated p50 ms', 'ungated p99 ms', 'gated req/s', 'gated p50 ms', 'gated p99 ms', 'gated/ungated', 'server CPU µs/req ungated → gated', 'RSS before → after MB', 'failed requests'],
      report.hotPath.map((r) => [
        r.config, r.ungated?.rps ?? '–', ms(r.ungated?.p50 ?? Number.NaN), ms(r.ungated?.p99 ?? Number.NaN), r.gated.rps, ms(r.gated.p50), ms(r.gated.p99),
        r.ratio?.toFixed(2) ?? '–', cpu(r.ungated, r.gated), `${r.rssBeforeMB} → ${r.rssAfterMB}`, r.failures,
      ]),
    ),
  ];
  for (const skipped of report.skipped) lines.push('', `${skipped.config}: not measured (${skipped.reason})`);
  lines.push(...floorLines(report.hotPath, report.options.connections));
  if (report.expressFree) lines.push(...expressFreeLines(report.expressFree, report.options.expressFree, report.options.expressFreeRounds));
  if (report.paidStages) lines.push(...paidStageLines(report.paidStages, report.options.stages, report.options.stagesRounds, report.hotPath));
  if (report.idle) lines.push(...idleLines(report.idle));
  if (report.gateway) lines.push(...gatewayLines(report.gateway, report.options.connections));
  if (report.gatewaySkipped) lines.push('', `Gateway: not measured (${report.gatewaySkipped})`);
  if (report.firstPayment) {
    const fp = report.firstPayment;
    lines.push(
      '',
      `### First payment (new card per request, ${fp.config}, Stripe emulator in its own process; ${fp.stripeCallsPerPayment} Stripe calls per payment)`,
      '',
      ...table(['path', 'payments', 'concurrency', 'per second', 'p50 ms', 'p99 ms', 'caller CPU ms/payment', 'emulator CPU ms/payment', 'failures'], [
        paymentRow('through the gate (server child: gate + Stripe SDK + store)', fp.throughGate),
        paymentRow('processor calls alone (bench process: Stripe SDK, no gate, no store)', fp.processorAlone),
        paymentRow('emulator alone: one PaymentIntent create+confirm (bench process: SDK)', fp.emulatorPaymentIntent),
      ]),
    );
  }
  if (report.soak) lines.push(...soakLines(report.soak));
  lines.push('', '### Targets', '', ...table(['target', 'measured', 'verdict'], report.targets.map((t) => [t.target, t.measured, t.verdict])));
  lines.push('', `Bench wall time: ${report.wallSeconds.toFixed(0)} s.`);
  return lines.join('\n');
}
