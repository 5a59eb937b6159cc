// The Hono middleware (`credit402/hono`): table and per-route gating on a real socket through @hono/node-server, failing handlers, bodies and ambiguous targets.
import { getRequestListener } from '@hono/node-server';
import { type Handler, Hono } from 'hono';
import { validator } from 'hono/validator';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gate } from '../../gate/index.ts';
import { decodeBase64Json, encodeBase64Json } from '../../protocol/base64-json.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { fundedGate } from 'credit402-tooling/testing/funded-gate';
import { localServers } from 'credit402-tooling/testing/listen-local';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { credit402Hono, type Credit402HonoOptions } from './hono.ts';

const CLIENT = 'd'.repeat(64);
const SPEND = encodeBase64Json({ clientId: CLIENT });

/** A gate (table `routes` when given) over a memory store where the client has 10000 units. */
const setUp = (routes?: Record<string, RouteConfig>, refundOnHandlerError = false) => fundedGate(CLIENT, routes, { refundOnHandlerError });

const servers = localServers();
afterEach(servers.closeAll);
/** Serves the app on a real socket through @hono/node-server. */
const listen = (app: Hono): Promise<string> => servers.listen(getRequestListener(app.fetch));

const decoded = (header: string | null | undefined) => {
  const value = decodeBase64Json(String(header));
  return value.ok ? value.value : undefined;
};

/** An app with the demo routes: `/api/weather`, `/api/users/:id{[0-9]+}`, `/api/throws`, `/api/fails`, `/free`. */
function demoApp(gate: Gate, gating: 'table' | 'per-route', ran: string[], options: Credit402HonoOptions = {}): Hono {
  const credit402 = credit402Hono(gate, options);
  const app = new Hono();
  /** Declares a GET route, priced with credit402.route(config) under per-route gating. */
  const get = (path: string, config: RouteConfig, handler: Handler) => (gating === 'per-route' ? app.get(path, credit402.route(config), handler) : app.get(path, handler));
  app.onError((_error, c) => c.json({ error: 'Internal Server Error' }, 500));
  app.use(gating === 'table' ? credit402.middleware() : credit402.targetGuard());
  get('/api/weather', { amount: 500 }, (c) => {
    ran.push(c.req.path);
    return c.json({ temperature: 21, paid: c.get('credit402') ?? null });
  });
  get('/api/users/:id{[0-9]+}', { amount: 300 }, (c) => {
    ran.push(c.req.path);
    return c.json({ id: c.req.param('id') });
  });
  get('/api/throws', { amount: 200 }, () => {
    throw new Error('the handler failed');
  });
  get('/api/fails', { amount: 100 }, (c) => c.json({ failed: true }, 500));
  app.get('/free', (c) => {
    ran.push(c.req.path);
    return c.json({ free: true, paid: c.get('credit402') ?? null });
  });
  return app;
}

const TABLE: Record<string, RouteConfig> = {
  'GET /api/weather': { amount: 500 },
  'GET /api/users/:id': { amount: 300 },
  'GET /api/throws': { amount: 200 },
  'GET /api/fails': { amount: 100 },
};

describe.each(['table', 'per-route'] as const)('the Hono middleware, %s gating', (gating) => {
  const gateRoutes = gating === 'table' ? TABLE : undefined;

  it('challenges an unpaid request, serves a paid one with payment-response and c.get("credit402"), and leaves free routes alone', async () => {
    const { gate, balance, resources } = await setUp(gateRoutes);
    const ran: string[] = [];
    const url = await listen(demoApp(gate, gating, ran));

    const unpaid = await fetch(`${url}/api/users/42`);
    expect(unpaid.status).toBe(402);
    expect(decoded(unpaid.headers.get('payment-required'))).toMatchObject({ resource: { url: '/api/users/42' }, accepts: [{ amount: 300 }] });

    const paid = await fetch(`${url}/api/weather`, { headers: { payment: SPEND } });
    expect(paid.status).toBe(200);
    expect(decoded(paid.headers.get('payment-response'))).toEqual({ success: true, creditsRemaining: 9_500, clientId: CLIENT });
    expect(await paid.json()).toEqual({ temperature: 21, paid: { success: true, creditsRemaining: 9_500, clientId: CLIENT } });

    const user = await fetch(`${url}/api/users/7`, { method: 'HEAD', headers: { payment: SPEND } });
    expect(user.status).toBe(200);
    expect(decoded(user.headers.get('payment-response'))).toMatchObject({ creditsRemaining: 9_200 });

    const free = await fetch(`${url}/free`, { headers: { payment: SPEND } });
    expect(await free.json()).toEqual({ free: true, paid: null });
    expect(free.headers.get('payment-response')).toBeNull();
    expect(ran).toEqual(['/api/weather', '/api/users/7', '/free']);
    expect(await balance()).toBe(9_200);
    // Per route, the key is the route's path in the route-key syntax (`:id{[0-9]+}` is `:id`), HEAD named as GET.
    expect(await resources()).toEqual(['GET /api/weather', 'GET /api/users/:id']);
  });

  it('answers an ambiguous target 400 as received, on gated and free routes, and charges nothing (CR-4.10)', async () => {
    const { gate, balance } = await setUp(gateRoutes);
    const ran: string[] = [];
    const url = await listen(demoApp(gate, gating, ran));
    for (const target of ['/api/./weather', '/free/../api/weather', '/api/weather#x', '/free#x', '/api/users/%FF']) {
      const answer = await rawRequest(url, 'GET', target, { payment: SPEND });
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
    }
    expect(ran).toEqual([]);
    expect(await balance()).toBe(10_000);
  });

  it("keeps the deduction of a handler that throws (Hono's 500, with payment-response) or answers 500, and refunds it with refundOnHandlerError", async () => {
    for (const refundOnHandlerError of [false, true]) {
      const { gate, balance } = await setUp(gateRoutes, refundOnHandlerError);
      const url = await listen(demoApp(gate, gating, []));
      const thrown = await fetch(`${url}/api/throws`, { headers: { payment: SPEND } });
      expect(thrown.status).toBe(500);
      expect(decoded(thrown.headers.get('payment-response'))).toMatchObject({ success: true, creditsRemaining: 9_800 });
      const failed = await fetch(`${url}/api/fails`, { headers: { payment: SPEND } });
      expect(failed.status).toBe(500);
      expect(await failed.json()).toEqual({ failed: true });
      expect(await balance()).toBe(refundOnHandlerError ? 10_000 : 9_700);
    }
  });
});

describe('the Hono middleware and request bodies (CR-4.7)', () => {
  it('refuses a body the body option cannot parse before anything is charged; the handler reads the parsed body again', async () => {
    const { gate, balance } = await setUp({ 'POST /api/translate': { amount: 250 } });
    const credit402 = credit402Hono(gate, { body: (c) => c.req.json() });
    const app = new Hono();
    app.use(credit402.middleware());
    app.post('/api/translate', async (c) => c.json({ text: ((await c.req.json()) as { text: string }).text }));
    const url = await listen(app);
    const post = (body: string) => fetch(`${url}/api/translate`, { method: 'POST', headers: { payment: SPEND, 'content-type': 'application/json' }, body });
    const broken = await post('{"text"');
    expect(broken.status).toBe(400);
    expect(broken.headers.get('payment-response')).toBeNull();
    expect(await balance()).toBe(10_000);
    const good = await post('{"text":"hello"}');
    expect(await good.json()).toEqual({ text: 'hello' });
    expect(await balance()).toBe(9_750);
  });

  it('never charges what a validator declared before credit402.route() refuses', async () => {
    const { gate, balance } = await setUp();
    const credit402 = credit402Hono(gate);
    const app = new Hono();
    const needsText = validator('json', (value, c) => (typeof value === 'object' && value !== null && typeof Reflect.get(value, 'text') === 'string' ? value : c.json({ error: 'text needed' }, 400)));
    app.post('/api/translate', needsText, credit402.route({ amount: 250 }), (c) => c.json({ ok: true }));
    const url = await listen(app);
    const refused = await fetch(`${url}/api/translate`, { method: 'POST', headers: { payment: SPEND, 'content-type': 'application/json' }, body: '{"nope":1}' });
    expect(refused.status).toBe(400);
    expect(await balance()).toBe(10_000);
    const served = await fetch(`${url}/api/translate`, { method: 'POST', headers: { payment: SPEND, 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    expect(served.status).toBe(200);
    expect(await balance()).toBe(9_750);
  });

  it('validates a route configuration where it is declared', async () => {
    const { gate } = await setUp();
    expect(() => credit402Hono(gate).route({ amount: 1.5 })).toThrow(expect.objectContaining({ code: 'ERR_ROUTE_AMOUNT' }));
  });
});
