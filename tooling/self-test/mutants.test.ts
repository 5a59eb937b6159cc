// The kit must catch deliberately broken reference servers: each mutant runs through the kit's `--target-cmd` and must fail on its requirement.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-mutants-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/**
 * Runs the kit against a mutant, on the scenarios of `tags` or on the whole suite, with `extra` kit options (e.g. the
 * mutant's declarations); resolves to the exit code and the console report.
 */
function conformance(mutant: string, tags?: string, extra: readonly string[] = []): Promise<{ code: number | null; output: string }> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const selection = tags === undefined ? [] : ['--tags', tags];
  const args = [...kit, 'conformance', '--target-cmd', targetCommand(`tooling/self-test/${mutant}.ts`), ...selection, '--emulator-port', '0', '--reports', join(reports, mutant), ...extra];
  const child = spawn(node, args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** The requirement IDs listed under "requirements failed". */
function failedRequirements(output: string): string[] {
  const section = output.split('requirements failed:')[1] ?? '';
  return [...section.matchAll(/^ {2}(CR-\d+\.\d+)\b/gm)].map((match) => match[1] ?? '');
}

describe('mutants', () => {
  it('CR-7.14, CR-1.3: a target charging ⌊units/100⌋ cents fails the cents-rounding scenarios, and nothing else', async () => {
    const { code, output } = await conformance('round-down', '@CR-7.14 or @CR-1.3');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(['CR-1.3', 'CR-7.14']);
  }, 60_000);

  it('CR-6.2: a target whose payment-response breaks its JSON Schema fails, and the report shows the schema error', async () => {
    const { code, output } = await conformance('string-credits', '@CR-6.2');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toContain('CR-6.2');
    expect(output).toContain('breaks its JSON Schema');
    expect(output).toContain('/creditsRemaining must be integer');
  });

  it('CR-4.6: a target whose handler also runs after a 402 fails on the handler-run counts, named as such', async () => {
    const { code, output } = await conformance('handler-after-402', '@CR-5.1');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(['CR-4.6']);
    expect(output).toContain('although the request was not served');
  });

  it('CR-7.9, CR-7.13: a target that charges and then answers an error fails with "charged but not credited"', async () => {
    const { code, output } = await conformance('charge-then-error', '@CR-7.13');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(expect.arrayContaining(['CR-7.9', 'CR-7.13']));
    expect(output).toMatch(/charged but not credited: PaymentIntent pi_\w+ succeeded/);
  });

  it('CR-6.8: a target whose store keeps one balance for every currency fails strict on CR-6.8 alone, not on the routing corpus', async () => {
    const { code, output } = await conformance('one-balance');
    expect(code, output).toBe(1);
    for (const routing of ['CR-4.9', 'CR-4.10', 'CR-13.25']) expect(failedRequirements(output), output).not.toContain(routing);
    expect(failedRequirements(output), output).toEqual(['CR-6.8']);
  }, 120_000);

  it('CR-13.27: a target that gives a failed handler its price back (refundOnHandlerError on, conformance runs have it off) fails CR-13.27 alone, and passes the wire level', async () => {
    const { code, output } = await conformance('refund-inverted', '@CR-4.7 or @CR-13.27');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(['CR-13.27']);
    expect(output).toContain('was given back after its handler failed');
    expect(output).toMatch(/wire {3}3\/3 scenarios passed: claimed/);
  }, 60_000);

  it('CR-8.12: a target whose store calls have no deadline holds a paid request as long as the store hangs, and fails CR-8.12 alone', async () => {
    const { code, output } = await conformance('no-store-deadline', '@CR-8.12', ['--declare', 'capabilities=storeFaults,records']);
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(['CR-8.12']);
    expect(output).toMatch(/the store held the call 5000 ms and the target answered 200 .* after \d+ ms/);
  }, 60_000);

  it('CR-6.2, CR-6.3: a batched store that crosses two clients\' outcomes fails the many-clients scenario, not the one-client race', async () => {
    const { code, output } = await conformance('crossed-batch', '@CR-6.2 and @CR-6.3');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(['CR-6.2', 'CR-6.3']);
    expect(output).toContain('did not get their own outcome');
    expect(output).toContain('1 passed, 1 failed');
  }, 60_000);

  it('CR-6.9: a robust run\'s generated histories fail a store that does not scope request ids per client on CR-6.9 alone, the levels holding it not claimed', async () => {
    const { code, output } = await conformance('request-id-unscoped', '@CR-7.14', ['--level', 'robust', '--history-seconds', '20', '--seed', '36101']);
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(['CR-6.9']);
    expect(output).toContain('✗ history failed: CR-6.9');
    expect(output).toContain('which this client never used: request ids are kept per client');
    expect(output).toMatch(/^ {2}wire +(\d+)\/\1 scenarios passed: claimed$/m);
    expect(output).toMatch(/^ {2}strict +(\d+)\/\1 scenarios passed, generated histories failed CR-6\.9: not claimed$/m);
    expect(output.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed; histories failed CR-6\.9$/);
  }, 90_000);

  it('CR-7.3: a target deriving the clientId from the PaymentMethod id fails the identity scenarios', async () => {
    const { code, output } = await conformance('client-id-from-payment-method', '@CR-7.3');
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toContain('CR-7.3');
  });
});

/** The gateway mutants: the requirement each fails alone, and what its failure says. */
const GATEWAY_MUTANTS = [
  {
    title: 'CR-15.3: a gateway that keeps the price of a request its upstream never answered fails CR-15.3 alone',
    mutant: 'gateway-no-refund', id: 'CR-15.3', says: 'whose deduction and request id were not given back',
  },
  {
    title: 'CR-15.2: a gateway that forwards the client\'s payment header to its upstream fails CR-15.2 alone',
    mutant: 'gateway-forwards-payment', id: 'CR-15.2', says: "the client's payment header is not forwarded to the upstream",
  },
];

describe('gateway mutants (capability gateway: the kit\'s controlled upstream)', () => {
  for (const { title, mutant, id, says } of GATEWAY_MUTANTS) {
    it(title, async () => {
      const { code, output } = await conformance(mutant, '@gateway', ['--declare', 'capabilities=gateway']);
      expect(code, output).toBe(1);
      expect(failedRequirements(output), output).toEqual([id]);
      expect(output).toContain(says);
    }, 120_000);
  }
});
