// The optional CORS policy: validated at construction, applied by the engine to gated answers and preflights only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { applyCredit402 } from '../adapters/node-http/node-http.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import type { CorsOptions } from './cors.ts';
import { createGate } from './gate.ts';
import { untouchableProcessor } from 'credit402-tooling/testing/untouchable-processor';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const processor = untouchableProcessor();
const gateWith = (cors?: unknown) =>
  createGate({
    ...TEST_GATE_KEYS,
    store: new MemoryStore(),
    processor,
    routes: { 'GET /api/weather': { amount: 500 }, 'POST /api/weather': { amount: 700 } },
    onError: () => {},
    cors: cors as CorsOptions | undefined,
  });
const APP = 'https://app.example';

describe('the cors option', () => {
  it.each([
    [{}, 'origins must be'],
    [{ origins: [] }, 'origins must be'],
    [{ origins: ['https://app.example/path'] }, 'is not an origin'],
    [{ origins: ['HTTPS://APP.EXAMPLE'] }, 'is not an origin'],
    [{ origins: '*', maxAgeSeconds: -1 }, 'maxAgeSeconds'],
    [{ origins: '*', credentials: true }, 'unknown member credentials'],
    ['*', 'must be an object'],
  ])('refuses %j at construction with ERR_CORS', (cors, message) => {
    expect(() => gateWith(cors)).toThrow(expect.objectContaining({ code: 'ERR_CORS', message: expect.stringContaining(message) }));
  });

  it('is off by default: no CORS header on a challenge, and OPTIONS passes to the application', async () => {
    const gate = gateWith();
    const challenge = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: undefined, origin: APP });
    expect(challenge.action === 'respond' && Object.keys(challenge.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(await gate.handle({ method: 'OPTIONS', url: '/api/weather', paymentHeader: undefined, origin: APP })).toEqual({ action: 'pass' });
  });

  it('exposes the protocol headers to an allowed origin, varies on origin, and leaves the shared challenge untouched', async () => {
    const gate = gateWith({ origins: [APP] });
    const allowed = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: undefined, origin: APP });
    expect(allowed).toMatchObject({
      status: 402,
      headers: { 'access-control-allow-origin': APP, 'access-control-expose-headers': 'payment-required, payment-response', vary: 'payment, origin' },
    });
    const other = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: undefined, origin: 'https://evil.example' });
    expect(other.action === 'respond' && other.headers['access-control-allow-origin']).toBeUndefined();
    expect(gate.routes.get('GET /api/weather')?.challenges.plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers the preflight of a gated path 204 with its methods and the payment header; other paths pass', async () => {
    const gate = gateWith({ origins: '*', maxAgeSeconds: 60 });
    expect(await gate.handle({ method: 'OPTIONS', url: '/api/weather', paymentHeader: undefined, origin: APP })).toEqual({
      action: 'respond',
      status: 204,
      headers: {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, HEAD',
        'access-control-allow-headers': 'payment, content-type',
        'access-control-max-age': '60',
      },
      body: undefined,
      code: 'preflight',
    });
    expect(await gate.handle({ method: 'OPTIONS', url: '/free', paymentHeader: undefined, origin: APP })).toEqual({ action: 'pass' });
  });

  it('reaches a browser through a plain node:http server: preflight and challenge', async () => {
    const gate = gateWith({ origins: [APP] });
    const server = createServer((req, res) => void applyCredit402(gate, req, res).then((applied) => void (applied.answered || res.end('handler'))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const pre = await fetch(`${base}/api/weather`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-headers': 'payment' } });
      expect([pre.status, pre.headers.get('access-control-allow-headers'), pre.headers.get('access-control-allow-origin')]).toEqual([204, 'payment, content-type', APP]);
      const challenge = await fetch(`${base}/api/weather`, { headers: { origin: APP } });
      expect([challenge.status, challenge.headers.get('access-control-expose-headers')]).toEqual([402, 'payment-required, payment-response']);
    } finally {
      server.close();
    }
  });
});
