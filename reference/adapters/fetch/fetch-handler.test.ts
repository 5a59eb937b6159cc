// The fetch-handler adapter (`credit402/fetch`): a whole fetch app gated by the table, one route priced per route (Next.js style), on real sockets through @hono/node-server and called as plain functions.
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from '../../protocol/base64-json.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { fundedGate } from 'credit402-tooling/testing/funded-gate';
import { localServers } from 'credit402-tooling/testing/listen-local';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { credit402Handler, credit402Payment, credit402Settle, withCredit402, type FetchHandler } from './fetch-handler.ts';

const CLIENT = 'f'.repeat(64);
const SPEND = encodeBase64Json({ clientId: CLIENT });
const ROUTES: Record<string, RouteConfig> = {
  'GET /api/weather': { amount: 500, description: 'Weather' },
  'GET /api/throws': { amount: 300 },
  'GET /api/fails': { amount: 400 },
  'GET /api/moved': { amount: 100 },
  'POST /api/translate': { amount: 250 },
  'GET /api/upstream': { amount: 200 },
};

/** A gate over a memory store where the client has 10000 units. */
const setUp = (routes: Record<string, RouteConfig> | undefined = ROUTES, refundOnHandlerError = false) => fundedGate(CLIENT, routes, { refundOnHandlerError });

/** The demo app behind the gate: answers its path and the payment it saw; `/api/throws` throws, `/api/fails` answers 500. */
function app(ran: string[]): FetchHandler {
  return async (request) => {
    const { pathname } = new URL(request.url);
    ran.push(pathname);
    if (pathname === '/api/throws') throw new Error('the handler failed');
    if (pathname === '/api/fails') return Response.json({ failed: true }, { status: 500 });
    if (pathname === '/api/moved') return Response.redirect('http://127.0.0.1/elsewhere', 302);
    if (pathname === '/api/translate') return Response.json({ text: ((await request.json()) as { text: string }).text, paid: credit402Payment(request) });
    if (pathname === '/api/upstream') {
      await credit402Settle(request, { status: 502, upstreamFailed: true });
      return Response.json({ upstream: 'failed' }, { status: 502 });
    }
    return Response.json({ path: pathname, paid: credit402Payment(request) });
  };
}

const servers = localServers();
afterEach(servers.closeAll);
/** Serves `handler` on a real socket through @hono/node-server (which hands it `{ incoming }`, the target as received). */
const listen = (handler: FetchHandler): Promise<string> => servers.listen(getRequestListener(handler));

const decoded = (header: string | null | undefined) => {
  const value = decodeBase64Json(String(header));
  return value.ok ? value.value : undefined;
};

describe('credit402Handler: a fetch app gated by the route table', () => {
  it('challenges an unpaid gated request, serves a paid one with payment-response, and leaves free requests untouched', async () => {
    const { gate, balance, resources } = await setUp();
    const ran: string[] = [];
    const url = await listen(credit402Handler(gate, app(ran)));

    const unpaid = await fetch(`${url}/api/weather?city=Oslo`);
    expect(unpaid.status).toBe(402);
    expect(decoded(unpaid.headers.get('payment-required'))).toMatchObject({ resource: { url: '/api/weather', description: 'Weather' }, accepts: [{ amount: 500 }] });
    expect(ran).toEqual([]);

    const paid = await fetch(`${url}/api/weather`, { headers: { payment: SPEND } });
    expect(paid.status).toBe(200);
    expect(decoded(paid.headers.get('payment-response'))).toEqual({ success: true, creditsRemaining: 9_500, clientId: CLIENT });
    expect(await paid.json()).toEqual({ path: '/api/weather', paid: { success: true, creditsRemaining: 9_500, clientId: CLIENT } });

    const free = await fetch(`${url}/free`, { headers: { payment: '%%%' } });
    expect(free.status).toBe(200);
    expect(free.headers.get('payment-response')).toBeNull();
    expect(await free.json()).toEqual({ path: '/free' });
    expect(await balance()).toBe(9_500);
    expect(await resources()).toEqual(['GET /api/weather']);
  });

  it('hands the handler the path the gate matched (/api/%77eather is /api/weather, CR-4.9) and refuses ambiguous targets as received (CR-4.10), charging nothing', async () => {
    const { gate, balance } = await setUp();
    const ran: string[] = [];
    const url = await listen(credit402Handler(gate, app(ran)));
    const routed = await rawRequest(url, 'GET', '/api/%77eather?x=1', { payment: SPEND });
    expect(routed.status).toBe(200);
    expect(JSON.parse(routed.body)).toMatchObject({ path: '/api/weather' });
    for (const target of ['/api/./weather', '/free/../api/weather', '/api/weather#x', '/api/weather%zz']) {
      const answer = await rawRequest(url, 'GET', target, { payment: SPEND });
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
      expect(answer.headers['payment-response']).toBeUndefined();
    }
    expect(ran).toEqual(['/api/weather']);
    expect(await balance()).toBe(9_500);
  });

  it('keeps the deduction of a handler that throws or answers 500 (CR-4.7), and gives it back with refundOnHandlerError', async () => {
    for (const refundOnHandlerError of [false, true]) {
      const { gate, balance } = await setUp(ROUTES, refundOnHandlerError);
      const handler = credit402Handler(gate, app([]));
      await expect(handler(new Request('http://h/api/throws', { headers: { payment: SPEND } }))).rejects.toThrow('the handler failed');
      const failed = await handler(new Request('http://h/api/fails', { headers: { payment: SPEND } }));
      expect(failed.status).toBe(500);
      // The 500's payment-response states its deduction (after the thrown one's, given back or not).
      expect(decoded(failed.headers.get('payment-response'))).toMatchObject({ success: true, creditsRemaining: refundOnHandlerError ? 9_600 : 9_300 });
      expect(await balance()).toBe(refundOnHandlerError ? 10_000 : 9_300);
    }
  });

  it('adds payment-response to a response whose headers cannot change (Response.redirect)', async () => {
    const { gate } = await setUp();
    const moved = await credit402Handler(gate, app([]))(new Request('http://h/api/moved', { headers: { payment: SPEND } }));
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('http://127.0.0.1/elsewhere');
    expect(decoded(moved.headers.get('payment-response'))).toMatchObject({ creditsRemaining: 9_900 });
  });

  it('gives the whole deduction back once when the handler settles an upstream failure (credit402Settle, CR-15.3)', async () => {
    const { gate, balance } = await setUp();
    const answer = await credit402Handler(gate, app([]))(new Request('http://h/api/upstream', { headers: { payment: SPEND } }));
    expect(answer.status).toBe(502);
    expect(await balance()).toBe(10_000);
  });

  it('refuses a gated body the handler cannot parse before anything is charged (CR-4.7), and charges a good one', async () => {
    const { gate, balance } = await setUp();
    const ran: string[] = [];
    const url = await listen(credit402Handler(gate, app(ran), { body: (request) => request.clone().json() }));
    const post = (body: string) => fetch(`${url}/api/translate`, { method: 'POST', headers: { payment: SPEND, 'content-type': 'application/json' }, body });
    const broken = await post('{"text": "hel');
    expect(broken.status).toBe(400);
    expect(broken.headers.get('payment-response')).toBeNull();
    expect(ran).toEqual([]);
    expect(await balance()).toBe(10_000);

    const good = await post('{"text": "hello"}');
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ text: 'hello', paid: { success: true, creditsRemaining: 9_750, clientId: CLIENT } });
    // A free request's body is not read.
    expect((await fetch(`${url}/free`, { method: 'POST', body: 'not json' })).status).toBe(200);
  });

  it('answers the unpaid challenge to HEAD without a body', async () => {
    const { gate } = await setUp();
    const head = await credit402Handler(gate, app([]))(new Request('http://h/api/weather', { method: 'HEAD' }));
    expect(head.status).toBe(402);
    expect(head.headers.get('payment-required')).toBeTruthy();
    expect(await head.text()).toBe('');
  });
});

describe('withCredit402: one route handler priced where it is declared (Next.js App Router style)', () => {
  it('prices the handler, calls it with its own arguments, and keys it by the declared path in Next.js folder syntax', async () => {
    const { gate, balance, resources } = await setUp(undefined);
    const GET = withCredit402(gate, { amount: 300, description: 'A user' }, async (request: Request, context: { params: Promise<{ id: string }> }) => {
      return Response.json({ id: (await context.params).id, creditsRemaining: credit402Payment(request)?.creditsRemaining });
    }, { path: '/api/users/[id]' });
    const context = { params: Promise.resolve({ id: '42' }) };

    const unpaid = await GET(new Request('http://h/api/users/42'), context);
    expect(unpaid.status).toBe(402);
    expect(decoded(unpaid.headers.get('payment-required'))).toMatchObject({ resource: { url: '/api/users/42', description: 'A user' } });

    const paid = await GET(new Request('http://h/api/users/42', { headers: { payment: SPEND } }), context);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ id: '42', creditsRemaining: 9_700 });
    const head = await GET(new Request('http://h/api/users/42', { method: 'HEAD', headers: { payment: SPEND } }), context);
    expect(head.status).toBe(200);
    expect(await balance()).toBe(9_400);
    expect(await resources()).toEqual(['GET /api/users/:id', 'GET /api/users/:id']);
  });

  it('validates the configuration where it is declared, and keys each request path without a declared path', async () => {
    const { gate, resources } = await setUp(undefined);
    expect(() => withCredit402(gate, { amount: -1 }, async () => new Response())).toThrow(expect.objectContaining({ code: 'ERR_ROUTE_AMOUNT' }));
    const POST = withCredit402(gate, { amount: 10 }, async () => new Response('ok'));
    expect((await POST(new Request('http://h/api/echo', { method: 'POST', headers: { payment: SPEND } }))).status).toBe(200);
    expect(await resources()).toEqual(['POST /api/echo']);
  });

  it('refuses an ambiguous target it still sees (raw, on @hono/node-server) and charges nothing', async () => {
    const { gate, balance } = await setUp(undefined);
    const url = await listen(withCredit402(gate, { amount: 10 }, async () => new Response('ok')));
    const answer = await rawRequest(url, 'GET', '/a/../b', { payment: SPEND });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
    expect(await balance()).toBe(10_000);
  });
});
