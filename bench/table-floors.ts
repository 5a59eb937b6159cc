// The floors section of the bench's markdown: each configuration's gated route against its floor, in the same rounds.
import type { HotPathResult } from './hot-path.ts';
import { ms, signed, table } from './markdown.ts';

function redisCpu(result: HotPathResult): string {
  const floor = result.floor?.paid.redisCpuUs;
  return result.gated.redisCpuUs === undefined || floor === undefined ? '–' : `${result.gated.redisCpuUs.toFixed(0)} → ${floor.toFixed(0)}`;
}

/** The free-route table: the reference's ungated `GET /free` against the bare framework's, or nothing when none ran. */
function freeLines(hotPaths: HotPathResult[]): string[] {
  const compared = hotPaths.filter((result) => result.floor?.free !== undefined && result.ungated !== undefined);
  if (compared.length === 0) return [];
  return [
    '',
    '### Free routes: ungated `GET /free` on the reference vs the same route on the bare framework (the floor\'s process)',
    '',
    ...table(
      ['config', 'bare', 'free req/s ref → bare', 'ref/bare req/s', 'server CPU µs/free req ref → bare (added)'],
      compared.map((result) => {
        const floor = result.floor as NonNullable<HotPathResult['floor']>;
        const free = floor.free as NonNullable<typeof floor.free>;
        const ungated = result.ungated as NonNullable<HotPathResult['ungated']>;
        return [
          result.config, `${floor.floor} /free`, `${ungated.rps} → ${free.bare.rps}`, free.rpsRatio.toFixed(2),
          `${ungated.serverCpuUs.toFixed(0)} → ${free.bare.serverCpuUs.toFixed(0)} (${signed(free.addedCpuUs, 1)})`,
        ];
      }),
    ),
  ];
}

/** The floors table, or nothing when no configuration ran beside a floor. */
export function floorLines(hotPaths: HotPathResult[], connections: number): string[] {
  const compared = hotPaths.filter((result) => result.floor !== undefined);
  if (compared.length === 0) return [];
  return [
    '',
    `### Against the floors: paid \`GET /api/nodesc\` on the reference vs bare Fastify/Express doing one store operation (${connections} connections)`,
    '',
    ...table(
      ['config', 'floor', 'paid req/s ref → floor', 'ref/floor req/s', 'server CPU µs/paid req ref → floor (added)', 'Redis CPU µs/req ref → floor', 'p99 ms ref → floor', 'ref/floor p99', 'p99 ms ref → floor, one connection', 'ref/floor p99, one connection', 'floor failures'],
      compared.map((result) => {
        const floor = result.floor as NonNullable<HotPathResult['floor']>;
        return [
          result.config, floor.floor, `${result.gated.rps} → ${floor.paid.rps}`, floor.rpsRatio.toFixed(2),
          `${result.gated.serverCpuUs.toFixed(0)} → ${floor.paid.serverCpuUs.toFixed(0)} (${signed(floor.addedCpuUs)})`, redisCpu(result),
          `${ms(result.gated.p99)} → ${ms(floor.paid.p99)}`, floor.p99Ratio.toFixed(2),
          `${ms(floor.unqueued.server.p99)} → ${ms(floor.unqueued.floor.p99)}`, floor.unqueued.p99Ratio.toFixed(2), floor.failures,
        ];
      }),
    ),
    ...freeLines(hotPaths),
  ];
}
