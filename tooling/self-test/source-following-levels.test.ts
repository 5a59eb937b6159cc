// The kit judges a target that follows the stripe402 source fairly: wire claimed with 0 failures, strict failed only on the decisions it does not follow.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failedRequirements, runKit } from './run-kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-source-following-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** What the source-following target declares: the service-defined values it uses. */
const DECLARED = ['--declare', 'serviceName=stripe402', '--declare', 'customerMetadataKey=stripe402_client_id'];

/**
 * The strict decisions the target takes differently from credit402, and nothing else, each named by the requirement
 * whose text the failed check enforces: the payload rules it does not apply (CR-3.7, CR-3.8, CR-13.19), HEAD, ambiguous
 * targets, the descriptions, the base64 rules, the insufficient-credits message. It reads numbers as binary64 and
 * decodes base64 as CR-3.4 allows, so neither CR-13.33 nor CR-3.4 fails.
 */
const DECISIONS_NOT_FOLLOWED = ['CR-3.7', 'CR-3.8', 'CR-4.8', 'CR-4.10', 'CR-13.2', 'CR-13.10', 'CR-13.13', 'CR-13.19'];

const kit = (name: string, ...args: string[]) => runKit('source-following', join(reports, name), [...DECLARED, ...args]);

describe('a target that follows the stripe402 source and takes every open point its own way', () => {
  it('claims the wire level with 0 failures, and says nothing of the strict and robust requirements, whose checks it does not make', async () => {
    const { code, output } = await kit('wire', '--level', 'wire');
    expect(code, output).toBe(0);
    expect(output).toMatch(/^ {2}wire +(\d+)\/\1 scenarios passed: claimed$/m);
    expect(output.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(output.split('\nrequirements:\n')[1]?.split('\n')[1]).toMatch(/^\d+ scenarios?: not run/);
    expect(output).not.toMatch(/^ {2}(strict|robust) +\d+ passed/m);
    expect(output).toMatch(/^ {2}strict +not run \(--level wire\)$/m);
  }, 120_000);

  it('fails strict exactly on the decisions it does not follow, and still claims wire in the same run', async () => {
    const { code, output } = await kit('strict');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(DECISIONS_NOT_FOLLOWED.map((id) => `${id} strict`));
    expect(output).toMatch(/^ {2}wire +(\d+)\/\1 scenarios passed: claimed$/m);
    expect(output).toMatch(/^ {2}strict +\d+\/\d+ scenarios passed: not claimed$/m);
  }, 120_000);
});
