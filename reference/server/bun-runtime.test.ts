// The reference server's Hono app under Bun (the bun devDependency): what runs there, what cannot, and the one target Bun's own HTTP parser answers before the gate.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bunBinary } from 'credit402-tooling/testing/bun';
import { REPO_ROOT } from 'credit402-tooling/testing/kit';
import { rawRequest } from 'credit402-tooling/testing/raw-request';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** `credit402 serve --framework hono` from the sources under Bun, with `args`; its output so far and its exit, as they come. */
function serveUnderBun(args: string[], env: Record<string, string> = {}) {
  const child = spawn(bunBinary(), ['--conditions=credit402-source', join(REPO_ROOT, 'reference/cli.ts'), 'serve', '--framework', 'hono', '--host', '127.0.0.1', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) resolve(found[1] as string);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
  // A test that expects the exit awaits `exited` only.
  listening.catch(() => {});
  return { listening, exited, output: () => output };
}

describe('the reference server under Bun', () => {
  it('refuses the SQLite store with a coded error: better-sqlite3 is a Node addon Bun does not load', { timeout: 30_000 }, async () => {
    const server = serveUnderBun(['--store', 'sqlite'], { CREDIT402_SQLITE_PATH: ':memory:' });
    expect(await server.exited).not.toBe(0);
    expect(server.output()).toMatch(/ERR_STORE: the SQLite store runs on Node only: better-sqlite3 is a Node addon, which Bun [\d.]+ does not load/);
  });

  it("gives the gate's 400 to ambiguous targets Bun hands over, but its own bare 400 to other-scheme absolute forms (CR-4.10, L-58)", { timeout: 30_000 }, async () => {
    const url = await serveUnderBun(['--store', 'memory']).listening;
    for (const target of ['/api/./weather', '/api\\weather', '/api/weather#x', 'http:///api/weather']) {
      const answer = await rawRequest(url, 'GET', target);
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body), target).toMatchObject({ error: 'ambiguous_request_target' });
    }
    // Bun's parser answers these itself, before any JavaScript runs: nothing is read, charged or run, and the answer has
    // no JSON body. The spec lets it stand (CR-4.10, Appendix C L-58: a server that refuses the target itself need not
    // give the body), and the kit's routing corpus accepts a 400 without a body. Should Bun hand them over one day, this
    // fails, and the gate's 400 then answers them.
    const foreign = await rawRequest(url, 'GET', 'ftp://x/api/weather');
    expect(foreign.status).toBe(400);
    expect(foreign.body).toBe('');
  });
});
