// Over every self-test target: one that claims wire at --level wire claims it at --level strict and --level robust too (robustness declared, true or not). About 13 minutes: runs only with CREDIT402_EVERY_TARGET=1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runKit } from './run-kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-every-target-levels-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** The service-defined values the source-following targets use (source-following-levels.test.ts). */
const STRIPE402 = ['--declare', 'serviceName=stripe402', '--declare', 'customerMetadataKey=stripe402_client_id'];

/** Every self-test target the kit runs with `--target-cmd`, with what it declares. */
const TARGETS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['freedom', STRIPE402],
  ['strict-freedom', []],
  ['source-following', STRIPE402],
  ['source-departures', STRIPE402],
  ['one-balance', []],
  ['round-down', []],
  ['string-credits', []],
  ['handler-after-402', []],
  ['charge-then-error', []],
  ['client-id-from-payment-method', []],
  ['crossed-batch', []],
  ['refund-inverted', []],
  ['fresh-charge-key', []],
  ['literal-target-gate', []],
  ['no-store-deadline', ['--declare', 'capabilities=storeFaults,records']],
  ['non-atomic-deduction', []],
  ['request-id-unscoped', []],
  ['gateway-no-refund', ['--declare', 'capabilities=gateway']],
  ['gateway-forwards-payment', ['--declare', 'capabilities=gateway']],
];

/** The wire level's line of a console report: whether it is claimed. */
function wireClaimed(output: string): boolean {
  const line = /^ {2}wire +(.*)$/m.exec(output.split('\nlevels:\n')[1] ?? '')?.[1];
  if (line === undefined) throw new Error(`no wire level line in the report:\n${output}`);
  return line.endsWith(': claimed');
}

/** The levels that have a line under "requirements:" (a verdict on their IDs): its indented lines. */
function requirementLevels(output: string): string[] {
  const lines = (output.split('\nrequirements:\n')[1] ?? '').split('\n');
  const block = lines.slice(0, lines.findIndex((line) => !line.startsWith('  ')));
  return block.map((line) => /^ {2}(\w+) /.exec(line)?.[1] ?? line);
}

/** Whether to run it: opt-in, since npm test covers the same property with the freedom and source-following targets. */
const ENABLED = process.env.CREDIT402_EVERY_TARGET === '1';

describe.runIf(ENABLED)('a self-test target that claims wire at --level wire claims it at every level', () => {
  // A robust run declaring robustness (true or not) makes every check of a strict run and more, so a wire level it
  // claims is claimed at --level strict too; it is needed only when the --level wire run claims wire.
  it.each(TARGETS)('%s', async (target, declared) => {
    const wire = await runKit(target, join(reports, `${target}-wire`), [...declared, '--level', 'wire']);
    expect(requirementLevels(wire.output), wire.output).toEqual(['wire']);
    expect(wire.output).not.toMatch(/\[(strict|robust)\]/);
    if (!wireClaimed(wire.output)) return;
    const robust = await runKit(target, join(reports, `${target}-robust`), [...declared, '--level', 'robust', '--declare', 'robustness=true']);
    expect(wireClaimed(robust.output), `${target} claims wire at --level wire but not at --level robust:\n${robust.output}`).toBe(true);
  }, 600_000);
});
