// The Koa example, an adapter written with the public adapter kit only, run as a user runs it: its own process against an emulator started here.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, expectWeatherExample, listeningUrl, useExampleProcesses } from './example-processes.ts';

const processes = useExampleProcesses();

/** Starts the example on a free port; resolves to the URL it prints. */
const start = (): Promise<string> => listeningUrl(processes.run('koa.mjs', ['0']));

/** A GET with the target sent as it is (fetch would normalise `/./`). */
function rawGet(base: string, target: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    get({ hostname, port, path: target }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    }).on('error', reject);
  });
}


describe('examples/koa.mjs', () => {
  it('answers 402, is paid by card, then serves from the balance, on the route the gate read; free routes stay free', async () => {
    const base = await start();

    // `/api/%77eather` is the gated /api/weather: charged as that route, and routed to its handler.
    const free = await expectWeatherExample(processes.emulator.url, base, '/api/%77eather');
    expect(await free.json()).toEqual({ ok: true });
  });

  it('answers 400 to an ambiguous request target (CR-4.10), gated or not, before anything is read or charged', async () => {
    const base = await start();
    for (const target of ['/api/./weather', '/health/../api/weather', '/api/weather%zz']) {
      const answer = await rawGet(base, target);
      expect(answer, target).toMatchObject({ status: 400, body: { error: 'ambiguous_request_target' } });
    }
  });

  it('is what docs/library.md shows under "Write an adapter for another framework"', () => {
    const page = readFileSync(join(EXAMPLES, '..', 'docs', 'library.md'), 'utf8');
    const section = page.split(/^## /m).find((part) => part.startsWith('Write an adapter for another framework'));
    const snippet = /<!-- example: examples\/koa\.mjs -->\n```\w*\n([\s\S]*?)```/.exec(section ?? '');
    expect(snippet, 'the section quotes examples/koa.mjs').not.toBeNull();
    expect(readFileSync(join(EXAMPLES, 'koa.mjs'), 'utf8')).toContain(snippet?.[1]);
  });
});
