// The routing corpus (features/04-routing.feature, CR-4.9 and CR-4.10) through the kit: the reference passes it on every framework, table and per-route gating, the pre-fix gate fails it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KIT_COMMAND, REPO_ROOT, targetCommand } from '../testing/kit.ts';

const TAGS = '@CR-4.9 or @CR-4.10';
const reports = mkdtempSync(join(tmpdir(), 'credit402-routing-corpus-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** Runs the kit's routing scenarios against `command`; resolves to the exit code and the console report. */
function conformance(name: string, command: string): Promise<{ code: number | null; output: string }> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const args = [...kit, 'conformance', '--target-cmd', command, '--tags', TAGS, '--emulator-port', '0', '--reports', join(reports, name)];
  const child = spawn(node, args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** The reference server on `framework` with a memory store, as `npm run conformance -- --framework F --gating G` starts it. */
const reference = (framework: string, gating = 'table'): string => {
  const [entry, name] = framework === 'express4' ? ['tooling/self-test/serve-express4.ts', 'express'] : ['reference/cli.ts', framework];
  return `${targetCommand(entry, ['serve', '--store', 'memory', '--framework', name, '--gating', gating, '--host', '127.0.0.1'])} --profile "$CREDIT402_PROFILE" --port "$PORT"`;
};

/** The requirement IDs listed under "requirements failed". */
const failedRequirements = (output: string): string[] =>
  [...(output.split('requirements failed:')[1] ?? '').matchAll(/^ {2}(CR-\d+\.\d+)\b/gm)].map((match) => match[1] ?? '');

describe.concurrent('the routing corpus', () => {
  it.each(['fastify', 'express', 'express4', 'http', 'hono'])('CR-4.9 CR-4.10: the reference on %s passes it: no bypass, no charge without service', async (framework) => {
    const { code, output } = await conformance(framework, reference(framework));
    expect(code, output).toBe(0);
    expect(output).toMatch(/^(\d+) passed, 0 failed$/m);
    expect(Number(/^(\d+) passed, 0 failed$/m.exec(output)?.[1])).toBeGreaterThanOrEqual(33);
  }, 180_000);

  // Per-route gating: the framework's router decides what matched and the gate prices the route it ran.
  it.each(['fastify', 'express', 'express4', 'hono'])('CR-4.9 CR-4.10: the per-route reference on %s passes it: no bypass, no charge without service', async (framework) => {
    const { code, output } = await conformance(`per-route-${framework}`, reference(framework, 'per-route'));
    expect(code, output).toBe(0);
    expect(Number(/^(\d+) passed, 0 failed$/m.exec(output)?.[1])).toBeGreaterThanOrEqual(33);
  }, 180_000);

  it('CR-4.9 CR-4.10: the pre-fix Express server (literal gate, raw target to the router) fails it with bypasses and charges without service', async () => {
    const { code, output } = await conformance('literal-target-gate', targetCommand('tooling/self-test/literal-target-gate.ts'));
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(expect.arrayContaining(['CR-4.9', 'CR-4.10']));
    expect(output).toContain('unpaid, the handler of GET /api/weather answered: GET /api\\weather#x → 200');
    expect(output).toMatch(/500 usd units were deducted, but no gated handler answered: GET \/api\/%77eather → 404/);
  }, 180_000);
});
