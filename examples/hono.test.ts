// The Hono example run as a user runs it, its own process against an emulator started here: on Node, and the same file under Bun.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bunBinary } from 'credit402-tooling/testing/bun';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { EXAMPLES, expectWeatherExample, listeningUrl, useExampleProcesses } from './example-processes.ts';

const processes = useExampleProcesses();

/** Starts the example on a free port under `runtime`; resolves to the URL it prints. */
function start(runtime: 'node' | 'bun'): Promise<string> {
  if (runtime === 'node') return listeningUrl(processes.run('hono.mjs', ['0']));
  return listeningUrl(processes.start(bunBinary(), ['--conditions=credit402-source', join(EXAMPLES, 'hono.mjs'), '0'], EXAMPLES));
}

describe.each(['node', 'bun'] as const)('examples/hono.mjs on %s', (runtime) => {
  it('answers 402, is paid by card, then serves from the balance; free routes stay free; ambiguous targets get 400', { timeout: 30_000 }, async () => {
    const base = await start(runtime);

    const free = await expectWeatherExample(processes.emulator.url, base);
    expect(await free.json()).toEqual({ ok: true });

    for (const target of ['/api/./weather', '/health/../api/weather', '/api/weather%zz']) {
      const answer = await rawRequest(base, 'GET', target);
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
    }
  });
});

describe('the documentation of examples/hono.mjs', () => {
  it('docs/library.md quotes the example whole (all but its opening comment)', () => {
    const source = readFileSync(join(EXAMPLES, 'hono.mjs'), 'utf8');
    const lines = source.split('\n');
    const first = lines.findIndex((line) => !line.startsWith('//') && line.trim() !== '');
    const whole = `${lines.slice(first).join('\n').trimEnd()}\n`;
    const page = readFileSync(join(EXAMPLES, '..', 'docs', 'library.md'), 'utf8');
    const quoted = [...page.matchAll(/<!-- example: examples\/hono\.mjs -->\n```\w*\n([\s\S]*?)```/g)].map((match) => match[1]);
    expect(quoted).toContain(whole);
  });
});
