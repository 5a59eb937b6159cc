// The kit's history runner must catch deliberately broken reference servers: each mutant fails `history` on its requirement with a shrunk history of at most a dozen operations.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-history-mutants-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** Runs `history` against `reference/self-test/<mutant>.ts` with the default budget; resolves to the exit code and the output. */
function history(mutant: string, seed: number): Promise<{ code: number | null; output: string }> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const args = [...kit, 'history', '--target-cmd', targetCommand(`reference/self-test/${mutant}.ts`), '--emulator-port', '0', '--seed', String(seed), '--reports', join(reports, mutant)];
  const child = spawn(node, args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** The number of operations of the printed shrunk history. */
function shrunkLength(output: string): number {
  return Number(/^shrunk history \((\d+) operations?;/m.exec(output)?.[1] ?? Number.NaN);
}

describe('history mutants', () => {
  it('CR-6.9: a store that does not scope request ids per client serves another client\'s request with a kept id free', async () => {
    const { code, output } = await history('request-id-unscoped', 36101);
    expect(code, output).toBe(1);
    expect(output).toContain('✗ history failed: CR-6.9\n');
    expect(output).toContain('which this client never used: request ids are kept per client');
    expect(shrunkLength(output), output).toBeLessThanOrEqual(12);
    expect(output).toMatch(/^\d+ passed, 1 failed$/m);
  }, 120_000);

  it('CR-6.7: a deduction that reads the balance and writes it back later loses a price to concurrent spends', async () => {
    const { code, output } = await history('non-atomic-deduction', 36102);
    expect(code, output).toBe(1);
    expect(output).toContain('✗ history failed: CR-6.7\n');
    expect(output).toContain('no serial order of these');
    expect(shrunkLength(output), output).toBeLessThanOrEqual(12);
  }, 120_000);
});
