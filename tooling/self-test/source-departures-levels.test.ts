// The kit fails the wire level of a target that follows the stripe402 source except where it departs from it, on exactly those departures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failedRequirements, runKit } from './run-kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-source-departures-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** What the target declares, as the source-following target does (source-following-levels.test.ts). */
const DECLARED = ['--declare', 'serviceName=stripe402', '--declare', 'customerMetadataKey=stripe402_client_id'];

/**
 * The wire requirements the four departures break, and nothing else: lenient decoding of values outside the
 * alphabets or of length 4n+1 (CR-3.5), a 500 for a payload that is not an object (CR-8.11: seed §7 answers every
 * error on a gated route 402), a fractional top-up charged and not credited (CR-7.9, CR-7.13), and a message
 * other than `Payment processing failed` for a PaymentIntent that did not succeed (CR-7.7).
 */
const WIRE_FAILURES = ['CR-3.5', 'CR-7.7', 'CR-7.9', 'CR-7.13', 'CR-8.11'];

const kit = (name: string, ...args: string[]) => runKit('source-departures', join(reports, name), [...DECLARED, ...args]);

/** The failed requirements of level wire, sorted. */
const wireFailures = (output: string): string[] =>
  failedRequirements(output)
    .filter((failure) => failure.endsWith(' wire'))
    .map((failure) => failure.replace(/ wire$/, ''))
    .sort();

describe('a target that follows the stripe402 source and departs from it in four places', () => {
  it('fails the wire level on exactly the wire requirements its departures break', async () => {
    const { code, output } = await kit('wire', '--level', 'wire');
    expect(code, output).toBe(1);
    expect(wireFailures(output), output).toEqual([...WIRE_FAILURES].sort());
    expect(output).toMatch(/^ {2}wire +\d+\/\d+ scenarios passed: not claimed$/m);
  }, 120_000);

  it('fails the same wire requirements in a strict run, and claims neither level', async () => {
    const { code, output } = await kit('strict');
    expect(code, output).toBe(1);
    expect(wireFailures(output), output).toEqual([...WIRE_FAILURES].sort());
    expect(output).toMatch(/^ {2}wire +\d+\/\d+ scenarios passed: not claimed$/m);
    expect(output).toMatch(/^ {2}strict +\d+\/\d+ scenarios passed: not claimed$/m);
  }, 120_000);
});
