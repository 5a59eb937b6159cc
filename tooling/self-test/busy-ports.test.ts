// `npm run conformance` holds on a busy machine: with the profile's emulator port (12111) and the server's default port (4020) held by another program, a conformance step still runs and passes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SOURCE_NODE_OPTIONS } from '../testing/kit.ts';

const reports = mkdtempSync(join(tmpdir(), 'credit402-busy-ports-'));
const held: Server[] = [];

/** Listens on 127.0.0.1:port until the end of the file; a port something else already holds is busy anyway. */
function hold(port: number): Promise<void> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve());
    server.listen(port, '127.0.0.1', () => {
      held.push(server);
      resolve();
    });
  });
}

beforeAll(async () => {
  await hold(12111);
  await hold(4020);
});

afterAll(async () => {
  await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(reports, { recursive: true, force: true });
});

/** Runs `npm run conformance` (memory store) on the scenarios of `tags`; resolves to its exit code and output. */
function conformance(tags: string): Promise<{ code: number | null; output: string }> {
  const args = [...SOURCE_NODE_OPTIONS, 'tooling/self-test/conformance.ts', '--store', 'memory', '--tags', tags, '--reports', reports];
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('a conformance step with ports 12111 and 4020 held by another program', () => {
  it('starts the emulator and the target on free ports and passes', async () => {
    const { code, output } = await conformance('@CR-6.2');
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/127\.0\.0\.1:12111/);
    expect(output.trimEnd().split('\n').at(-1)).toMatch(/^[1-9]\d* passed, 0 failed$/);
  }, 180_000);
});
