// The examples run as a user runs them: each server example as its own process against an emulator started here, paid 402 → card → balance; the README's snippets are the examples' code.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { KIT_COMMAND, SOURCE_NODE_OPTIONS, targetCommand } from 'credit402-tooling/testing/kit';
import { EXAMPLES, expectPaidThenSpent, expectWeatherExample, KEYS, listeningUrl, useExampleProcesses } from './example-processes.ts';

const ROOT = join(EXAMPLES, '..');
const processes = useExampleProcesses();
const { run, start } = processes;

/** Everything the process printed once it exits; rejects on a non-zero exit. */
function output(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}${err}`))));
  });
}


describe.each(['fastify-per-route.mjs', 'express.mjs', 'node-http.mjs'])('examples/%s', (file) => {
  it('answers 402, is paid by card, then serves from the balance; free routes stay free', async () => {
    const base = await listeningUrl(run(file, ['0']));

    await expectWeatherExample(processes.emulator.url, base);
  });
});

describe('examples/client.ts', () => {
  it('pays the Fastify example once, then spends from its balance', async () => {
    const base = await listeningUrl(run('fastify-per-route.mjs', ['0']));
    const { paymentMethodId } = await createPaymentMethod(processes.emulator.url, KEYS, uniqueCardNumber());
    const printed = await output(run('client.ts', [`${base}/api/weather`], { CREDIT402_PAYMENT_METHOD: paymentMethodId }));
    const calls = printed.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ call: 1, status: 200, chargeId: expect.stringMatching(/^pi_/), creditsRemaining: 49_500 });
    expect(calls[1]).toMatchObject({ call: 2, status: 200, creditsRemaining: 49_000 });
    expect(calls[1]?.chargeId).toBeUndefined();
  });
});

describe('examples/gateway: credit402 gateway in front of a Python upstream', () => {
  it('answers 402 itself, is paid by card, then forwards paid and free requests to the upstream', async () => {
    const dir = join(EXAMPLES, 'gateway');
    const upstream = start('python3', [join(dir, 'upstream.py'), '0'], dir);
    let upstreamLog = ''; // http.server logs each request it answers on stderr
    upstream.stderr?.on('data', (chunk: Buffer) => (upstreamLog += chunk));
    const upstreamUrl = await listeningUrl(upstream);
    // `credit402 gateway` as a user runs it, from this repository's sources: --stripe-api points it at the emulator.
    const cli = [...SOURCE_NODE_OPTIONS, join(ROOT, 'reference/cli.ts')];
    const gateway = start(process.execPath, [...cli, 'gateway', '--upstream', upstreamUrl, '--config', 'gateway.json', '--stripe-api', processes.emulator.url, '--port', '0'], dir);
    const base = await listeningUrl(gateway);

    const { paid, spent } = await expectPaidThenSpent(processes.emulator.url, base);
    expect(await paid.json()).toEqual({ temperature: 21, servedBy: 'upstream.py' });
    expect(await spent.json()).toEqual({ temperature: 21, servedBy: 'upstream.py' });

    const free = await fetch(`${base}/free`);
    expect(free.status).toBe(200);
    expect(free.headers.get('payment-response')).toBeNull();
    expect(await free.json()).toEqual({ ok: true, servedBy: 'upstream.py' });

    // The upstream answered the two paid requests and the free one; the unpaid one never reached it.
    expect(upstreamLog.match(/"GET \/api\/weather HTTP\/1\.1" 200/g)).toHaveLength(2);
    expect(upstreamLog.match(/"GET \/free HTTP\/1\.1" 200/g)).toHaveLength(1);
  });
});

describe('examples/kit-target.mjs', () => {
  it('passes the conformance kit up to the robust level', { timeout: 120_000 }, async () => {
    const reports = mkdtempSync(join(tmpdir(), 'credit402-kit-target-'));
    try {
      const [node = process.execPath, ...kit] = KIT_COMMAND;
      const args = ['conformance', '--target-cmd', targetCommand('examples/kit-target.mjs'), '--declare', 'robustness=true', '--emulator-port', '0', '--reports', reports];
      const printed = await output(start(node, [...kit, ...args], ROOT));
      expect(printed).toMatch(/robust +\d+\/\d+ scenarios passed: claimed/);
      expect(printed).toMatch(/^[1-9]\d* passed, 0 failed$/m);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  });
});

/** `code` indented by `indent` spaces on each non-empty line. */
function indented(code: string, indent: number): string {
  return code.replace(/^(?=.)/gm, ' '.repeat(indent));
}

/** The README and the pages of docs/. */
function documentationPages(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
}

/** A file's text without its opening comment lines and the blank lines after them: what a README quick start shows. */
function withoutOpeningComment(source: string): string {
  const lines = source.split('\n');
  const first = lines.findIndex((line) => !line.startsWith('//') && line.trim() !== '');
  return `${lines.slice(first).join('\n').trimEnd()}\n`;
}

/** Every fenced block announced by `<!-- example: path -->` in the README and docs/, with where it is. */
function announcedSnippets(): { page: string; path: string; code: string }[] {
  const pages = documentationPages();
  const found: { page: string; path: string; code: string }[] = [];
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const match of text.matchAll(/<!-- example: (\S+) -->\n```\w*\n([\s\S]*?)```/g)) {
      found.push({ page, path: match[1] as string, code: match[2] as string });
    }
  }
  return found;
}

describe('the documentation quotes the examples', () => {
  const snippets = announcedSnippets();

  it('each README and docs snippet marked as an example is verbatim in that file (uniformly indented at most)', () => {
    expect(snippets.length).toBeGreaterThan(0);
    for (const snippet of snippets) {
      const source = readFileSync(join(ROOT, snippet.path), 'utf8');
      const quoted = [0, 2, 4, 6].some((indent) => source.includes(indented(snippet.code, indent))); // verbatim, but for a uniform indentation
      expect(quoted, `${snippet.page} quotes ${snippet.path}:\n${snippet.code}`).toBe(true);
    }
  });

  it('the README quotes the Fastify and client examples, and every example is quoted whole somewhere (all but its opening comment): it runs as pasted', () => {
    const readmeSnippets = snippets.filter((snippet) => snippet.page === 'README.md');
    const inReadme = new Set(readmeSnippets.map((snippet) => snippet.path));
    for (const file of ['fastify-per-route.mjs', 'client.ts']) expect(inReadme).toContain(`examples/${file}`);
    for (const snippet of readmeSnippets) expect(snippet.code, `README.md quotes only part of ${snippet.path}`).toBe(withoutOpeningComment(readFileSync(join(ROOT, snippet.path), 'utf8')));
    for (const file of ['fastify-per-route.mjs', 'express.mjs', 'node-http.mjs', 'client.ts', 'emulator-in-tests.test.ts']) {
      const whole = withoutOpeningComment(readFileSync(join(EXAMPLES, file), 'utf8'));
      expect(snippets.some((snippet) => snippet.path === `examples/${file}` && snippet.code === whole), `no page quotes examples/${file} whole`).toBe(true);
    }
  });

  it('every `npm run NAME` in the README and docs names a script of package.json, and every `npx credit402…` a command of the packages', () => {
    const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const bins = ['reference', 'harness', 'emulator'].flatMap((dir) => Object.keys((JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { bin?: Record<string, string> }).bin ?? {}));
    for (const page of documentationPages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, name] of text.matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `${page}: npm run ${name}`).toContain(name);
      for (const [, name] of text.matchAll(/npx (credit402[\w-]*)/g)) expect(bins, `${page}: npx ${name}`).toContain(name);
    }
  });

  it('the README links the examples it does not quote, and their docs pages quote them', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const link of ['](examples/gateway/)', '](examples/kit-target.mjs)']) expect(readme).toContain(link);
    const quoted = snippets.map((snippet) => `${snippet.page} ${snippet.path}`);
    expect(quoted).toContain('docs/gateway.md examples/gateway/gateway.json');
    expect(quoted).toContain('docs/kit.md examples/kit-target.mjs');
  });
});
