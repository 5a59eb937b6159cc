// The Koa example, an adapter written with the public adapter kit only, run as a user runs it: its own process against an emulator started here.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { EXAMPLES, KEYS, listeningUrl, useExampleProcesses } from './example-processes.ts';

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

const encode = (payload: object): string => Buffer.from(JSON.stringify(payload)).toString('base64');
const decode = (header: string | null): Record<string, unknown> => JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8')) as Record<string, unknown>;

describe('examples/koa.mjs', () => {
  it('answers 402, is paid by card, then serves from the balance, on the route the gate read; free routes stay free', async () => {
    const base = await start();

    const challenge = await fetch(`${base}/api/weather`);
    expect(challenge.status).toBe(402);
    expect(decode(challenge.headers.get('payment-required'))).toMatchObject({ accepts: [{ amount: 500 }] });

    const { paymentMethodId } = await createPaymentMethod(processes.emulator.url, KEYS, uniqueCardNumber());
    const paid = await fetch(`${base}/api/weather`, { headers: { payment: encode({ paymentMethodId }) } });
    expect(paid.status).toBe(200);
    const receipt = decode(paid.headers.get('payment-response'));
    expect(receipt).toMatchObject({ success: true, chargeId: expect.stringMatching(/^pi_/), creditsRemaining: 49_500 });
    expect(await paid.json()).toEqual({ temperature: 21, creditsRemaining: 49_500 });

    // `/api/%77eather` is the gated /api/weather: charged as that route, and routed to its handler.
    const spent = await fetch(`${base}/api/%77eather`, { headers: { payment: encode({ clientId: receipt.clientId }) } });
    expect(spent.status).toBe(200);
    expect(decode(spent.headers.get('payment-response'))).toMatchObject({ success: true, creditsRemaining: 49_000 });
    expect(decode(spent.headers.get('payment-response')).chargeId).toBeUndefined();
    expect(await spent.json()).toEqual({ temperature: 21, creditsRemaining: 49_000 });

    const free = await fetch(`${base}/health`);
    expect(free.status).toBe(200);
    expect(free.headers.get('payment-response')).toBeNull();
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
