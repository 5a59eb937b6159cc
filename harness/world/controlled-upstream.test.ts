// The kit's controlled upstream: the profile's handlers and run counts, faults by request id, refused connections, what reached it.
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlledUpstream } from './controlled-upstream.ts';
import type { Profile } from './parameters.ts';

const PROFILE: Profile = {
  routes: { 'GET /api/weather': { amount: 500 }, 'GET /api/users/:id': { amount: 300 }, 'GET /api/fails': { amount: 400 }, 'GET /api/throws': { amount: 350 } },
  freeRoutes: ['GET /free'],
  failingHandlers: { 'GET /api/fails': 'answer500', 'GET /api/throws': 'throw' },
  stripeSecretKey: 'sk_test_x',
  stripePublishableKey: 'pk_test_x',
  serverSecret: 'x'.repeat(32),
};

/** One request on a fresh connection: its status and JSON body, or the transport error's code. */
function send(url: string, target: string, headers: Record<string, string> = {}, timeoutMs = 2000): Promise<{ status?: number; body?: unknown; error?: string }> {
  return new Promise((resolve) => {
    const outgoing = request(`${url}${target}`, { headers, agent: false }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }));
    });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    outgoing.end();
  });
}

/** One request whose answer may break off after its head: the status that came, and the error that ended it. */
function sendCut(url: string, target: string, requestId: string): Promise<{ status?: number; error?: string; body?: string }> {
  return new Promise((resolve) => {
    const outgoing = request(`${url}${target}`, { headers: { 'conformance-request-id': requestId }, agent: false }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk));
      response.on('error', (error) => resolve({ status: response.statusCode ?? 0, error: error.message, body: text }));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    outgoing.on('error', (error) => resolve({ error: error.message }));
    outgoing.end();
  });
}

let upstream: ControlledUpstream;
beforeEach(async () => {
  upstream = await ControlledUpstream.start(PROFILE);
});
afterEach(() => upstream.close());

describe('the controlled upstream', () => {
  it('serves the profile handlers as profile-upstream.py does, and counts their runs by request id', async () => {
    expect(await send(upstream.url, '/api/users/42?x=1', { 'conformance-request-id': 'a' })).toEqual({
      status: 200,
      body: { route: 'GET /api/users/:id', gated: true, params: { id: '42' } },
    });
    expect(await send(upstream.url, '/free')).toEqual({ status: 200, body: { route: 'GET /free', gated: false } });
    expect(await send(upstream.url, '/api/fails', { 'conformance-request-id': 'b' })).toMatchObject({ status: 500, body: { route: 'GET /api/fails' } });
    expect(await send(upstream.url, '/api/throws')).toEqual({ status: 500, body: { error: 'Internal Server Error' } });
    expect(await send(upstream.url, '/nowhere')).toMatchObject({ status: 404 });
    expect(await send(upstream.url, '/_conformance/handled?ids=a,b,c')).toEqual({ status: 200, body: { a: 1, b: 1, c: 0 } });
  });

  it('records the target and headers of each request id', async () => {
    await send(upstream.url, '/free?q=100%', { 'conformance-request-id': 'r', 'x-forwarded-for': '203.0.113.7' });
    expect(upstream.arrivals('r')).toMatchObject([{ method: 'GET', target: '/free?q=100%', headers: { 'x-forwarded-for': '203.0.113.7' } }]);
    expect(upstream.arrivals('never')).toEqual([]);
  });

  it('resets, closes, answers garbage or stalls the request whose id is armed, without running its handler, or cuts its answer after the status line', async () => {
    for (const fault of ['reset', 'close', 'invalid'] as const) {
      upstream.arm(fault, fault);
      const result = await send(upstream.url, '/api/weather', { 'conformance-request-id': fault });
      expect(result.error, fault).toBeDefined();
      expect(upstream.arrivals(fault)).toMatchObject([{ fault }]);
      expect(upstream.handlers.runs(fault)).toBe(0);
    }
    upstream.arm('c', 'cut');
    expect(await sendCut(upstream.url, '/api/weather', 'c')).toMatchObject({ status: 200, error: expect.any(String) });
    expect(upstream.arrivals('c')).toMatchObject([{ fault: 'cut' }]);
    expect(upstream.handlers.runs('c')).toBe(1);
    upstream.arm('s', 'stall');
    expect(await send(upstream.url, '/api/weather', { 'conformance-request-id': 's' }, 300)).toEqual({ error: 'TIMEOUT' });
    expect(await send(upstream.url, '/api/weather', { 'conformance-request-id': 'other' })).toMatchObject({ status: 200 });
  });

  it('refuses connections until it accepts them again, on the same port', async () => {
    const { url } = upstream;
    await upstream.refuseConnections();
    expect(await send(url, '/free')).toEqual({ error: 'ECONNREFUSED' });
    await upstream.acceptConnections();
    expect(upstream.url).toBe(url);
    expect(await send(url, '/free')).toMatchObject({ status: 200 });
  });
});
