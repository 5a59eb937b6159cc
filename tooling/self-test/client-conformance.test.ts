// `npm run conformance:client -- --help` and a `--client-cmd` meant for the kit: the script's own usage, and a refusal that names the kit's command.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SOURCE_NODE_OPTIONS } from '../testing/kit.ts';

/** Runs the script with `args`; its exit code and output. */
function runScript(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...SOURCE_NODE_OPTIONS, 'tooling/self-test/client-conformance.ts', ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the conformance:client script', () => {
  it('prints its own usage for --help, naming the kit command that judges another client, and runs nothing', () => {
    const { code, stdout } = runScript(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: npm run conformance:client -- \[--client credit402\|python\]/);
    expect(stdout).not.toContain('conformance:client -- client');
    expect(stdout).toContain('npx tsx --conditions=credit402-source harness/cli.ts client --client-cmd "CMD"');
    expect(stdout).not.toContain('every level …');
  });

  it.each([[['--client-cmd', 'python3 driver.py']], [['client', '--client-cmd', 'python3 driver.py']]])(
    'refuses %j instead of judging its own driver under another driver\'s name',
    (args) => {
      const { code, stdout, stderr } = runScript(args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('harness/cli.ts client --client-cmd "CMD"');
    },
  );
});
