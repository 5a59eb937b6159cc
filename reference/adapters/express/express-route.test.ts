// The per-route form on Express 5 and Express 4 over real sockets: `credit402.route(config)` prices the route Express matched.
import express5, { type Express } from 'express';
import express4 from 'express4';
import { afterEach, describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../../config/config-error.ts';
import { createGate, type Gate } from '../../gate/index.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { MemoryStore } from '../../stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { credit402Middleware } from './express.ts';
import { credit402Express } from './express-route.ts';
import { createPrometheusHooks } from '../../metrics/prometheus.ts';
import { fundedGate } from 'credit402-tooling/testing/funded-gate';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';
import { localServers } from 'credit402-tooling/testing/listen-local';

const CLIENT = 'e'.repeat(64);
const SPEND = { clientId: CLIENT };

/** A gate (table `routes` when given) over a memory store where the client has 10000 units. */
const setUp = (routes?: Record<string, RouteConfig>) => fundedGate(CLIENT, routes, { refundOnHandlerError: true });

const servers = localServers();
afterEach(servers.closeAll);
const listen = (app: Express): Promise<string> => servers.listen(app);

const answer = (req: { params: unknown }, res: { locals: Record<string, unknown>; json(body: unknown): unknown }) => void res.json({ params: req.params, paid: res.locals.credit402 ?? null });

const majors = { 'Express 5': { express: express5 as typeof express5, wildcard: '/files/{*rest}' }, 'Express 4': { express: express4 as typeof express5, wildcard: '/files/*' } };

describe.each(Object.keys(majors))('credit402.route on %s', (major) => {
  const { express, wildcard } = majors[major as keyof typeof majors];

  /** An app with the guard, two priced routes (one under a mounted router), a priced wildcard, a free route and a failing priced route. */
  async function start(gate: Gate, table = false): Promise<string> {
    const credit402 = credit402Express(gate);
    const app = express();
    app.set('case sensitive routing', true).set('strict routing', true);
    app.use(credit402.targetGuard());
    if (table) app.use(credit402Middleware(gate));
    app.get('/api/users/:id', credit402.route({ amount: 500, description: 'A user' }), answer);
    app.get(wildcard, credit402.route({ amount: 300 }), answer);
    app.get('/free/:name', answer);
    app.post('/fails', credit402.route({ amount: 800 }), () => {
      throw new Error('handler failed');
    });
    const router = express.Router({ strict: true, caseSensitive: true });
    router.get('/items/:item', credit402.route({ amount: 200 }), answer);
    app.use('/v1', router);
    app.use((_error: unknown, _req: unknown, res: { status(code: number): { end(): void } }, _next: unknown) => void res.status(500).end());
    return listen(app);
  }

  it('challenges with the request path, serves a paid request with res.locals.credit402, records the route key in the route-key syntax', async () => {
    const { gate, balance, resources } = await setUp();
    const url = await start(gate);
    const challenge = await paidFetch(url, 'GET /api/users/%37?x=1');
    expect(challenge).toMatchObject({ status: 402, paymentRequired: { resource: { url: '/api/users/7', description: 'A user' }, accepts: [{ amount: 500 }] } });
    const paid = await paidFetch(url, 'GET /api/users/7', SPEND);
    expect(paid).toMatchObject({ status: 200, body: { params: { id: '7' }, paid: { success: true, creditsRemaining: 9_500, clientId: CLIENT } }, paymentResponse: { creditsRemaining: 9_500 } });
    expect((await paidFetch(url, 'GET /v1/items/a', SPEND)).status).toBe(200);
    expect((await paidFetch(url, 'GET /files/a/b', SPEND)).status).toBe(200);
    expect(await balance()).toBe(10_000 - 500 - 200 - 300);
    expect(await resources()).toEqual(['GET /api/users/:id', 'GET /v1/items/:item', 'GET /files/*']);
  });

  it('prices HEAD on a GET route as the GET route (CR-4.8) and leaves free routes untouched', async () => {
    const { gate, balance, resources } = await setUp();
    const url = await start(gate);
    expect((await fetch(`${url}/api/users/7`, { method: 'HEAD' })).status).toBe(402);
    expect((await paidFetch(url, 'HEAD /api/users/7', SPEND)).status).toBe(200);
    const free = await paidFetch(url, 'GET /free/x', 'not base64 at all');
    expect(free).toMatchObject({ status: 200, body: { paid: null } });
    expect(free.paymentResponse).toBeUndefined();
    expect(await balance()).toBe(9_500);
    expect(await resources()).toEqual(['GET /api/users/:id']);
  });

  it('gives the price back when the handler fails (refundOnHandlerError: the engine decides on the settled 500)', async () => {
    const { gate, balance } = await setUp();
    const url = await start(gate);
    expect((await paidFetch(url, 'POST /fails', SPEND)).status).toBe(500);
    await expect.poll(balance, { timeout: 2_000 }).toBe(10_000);
  });

  it('with the target guard: ambiguous targets are answered 400, unreserved percent-encodings routed as the gate reads them', async () => {
    const { gate, balance } = await setUp();
    const url = await start(gate);
    for (const target of ['/api\\users/7', '/api/users/7#x', 'ftp://x/api/users/7', '/api/./users/7', '/free\\x']) {
      const response = await rawRequest(url, 'GET', target, { payment: Buffer.from(JSON.stringify(SPEND)).toString('base64') });
      expect(response.status, target).toBe(400);
      expect(JSON.parse(response.body), target).toMatchObject({ error: 'ambiguous_request_target' });
    }
    expect(await rawRequest(url, 'GET', '/%61pi/users/7')).toMatchObject({ status: 402 });
    expect(await rawRequest(url, 'GET', 'http://x/api/users/7')).toMatchObject({ status: 402 });
    expect(await rawRequest(url, 'GET', '/API/users/7')).toMatchObject({ status: 404 });
    expect(await balance()).toBe(10_000);
  });

  it('is not priced twice beside the table middleware: a request the table served passes', async () => {
    const { gate, balance, resources } = await setUp({ 'GET /api/users/7': { amount: 100 } });
    const url = await start(gate, true);
    expect((await paidFetch(url, 'GET /api/users/7', SPEND)).status).toBe(200);
    expect((await paidFetch(url, 'GET /api/users/8', SPEND)).status).toBe(200);
    expect(await balance()).toBe(10_000 - 100 - 500);
    expect(await resources()).toEqual(['GET /api/users/7', 'GET /api/users/:id']);
  });
});

describe.each(Object.keys(majors))('credit402.route under a mount with parameters on %s', (major) => {
  const { express } = majors[major as keyof typeof majors];

  /**
   * Routers mounted at `/t/:tenant` (one nested in another at `/u/:user`; their mounts declared), one at `/v1`, a sub-app
   * at `/s/:shop` (read from its public mountpath) and a router at `/w/:workspace` whose mount is not declared.
   */
  async function start(gate: Gate): Promise<string> {
    const credit402 = credit402Express(gate);
    const app = express();
    app.use(credit402.targetGuard());
    const tenant = express.Router();
    tenant.get('/items/:item', credit402.route({ amount: 100 }, { mount: '/t/:tenant' }), answer);
    const user = express.Router();
    user.get('/orders/:order', credit402.route({ amount: 100 }, { mount: '/t/:tenant/u/:user' }), answer);
    tenant.get('/wrong/:item', credit402.route({ amount: 100 }, { mount: '/x/:tenant' }), answer);
    const workspace = express.Router();
    workspace.get('/items/:item', credit402.route({ amount: 100 }), answer);
    app.use('/w/:workspace', workspace);
    tenant.use('/u/:user', user);
    app.use('/t/:tenant', tenant);
    const v1 = express.Router();
    v1.get('/items/:item', credit402.route({ amount: 100 }), answer);
    app.use('/v1', v1);
    const shop = express();
    shop.get('/items/:item', credit402.route({ amount: 100 }), answer);
    app.use('/s/:shop', shop);
    app.use((_error: unknown, _req: unknown, res: { status(code: number): { end(): void } }, _next: unknown) => void res.status(500).end());
    return listen(app);
  }

  it('keys records and metrics by the mount\'s route pattern, not the request path (was: one key, one metrics series, per tenant)', async () => {
    const { gate, resources } = await setUp();
    const url = await start(gate);
    const targets = ['/t/a/items/1', '/t/b/items/2', '/t/c/items/3', '/t/a/u/x/orders/1', '/t/b/u/y/orders/2', '/v1/items/1', '/s/one/items/1', '/s/two/items/2'];
    for (const target of targets) expect((await paidFetch(url, `GET ${target}`, SPEND)).status, target).toBe(200);
    expect(await resources()).toEqual([
      ...Array(3).fill('GET /t/:tenant/items/:item'),
      ...Array(2).fill('GET /t/:tenant/u/:user/orders/:order'),
      'GET /v1/items/:item',
      ...Array(2).fill('GET /s/:shop/items/:item'),
    ]);
  });

  it('keys a route under an undeclared mount with parameters by the mount path as received, and refuses a request outside its declared mount unpaid', async () => {
    const { gate, balance, resources } = await setUp();
    const url = await start(gate);
    expect((await paidFetch(url, 'GET /w/one/items/1', SPEND)).status).toBe(200);
    expect((await paidFetch(url, 'GET /t/a/wrong/1', SPEND)).status).toBe(500);
    expect(await resources()).toEqual(['GET /w/one/items/:item']);
    expect(await balance()).toBe(9_900);
  });

  it('keeps one challenge series per route for unpaid requests to 300 tenants', async () => {
    const store = new MemoryStore();
    const hooks = createPrometheusHooks();
    const gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor(), hooks, onError: () => {} });
    const url = await start(gate);
    for (let i = 0; i < 300; i++) expect((await paidFetch(url, `GET /t/tenant${i}/items/${i}`)).status).toBe(402);
    const series = (await hooks.metrics()).split('\n').filter((line) => line.startsWith('credit402_challenges_total{'));
    expect(series).toEqual(['credit402_challenges_total{route="GET /t/:tenant/items/:item"} 300']);
  });
});

describe('credit402.route validation', () => {
  it('throws the coded configuration error when the route is declared, naming credit402.route()', async () => {
    const credit402 = credit402Express((await setUp()).gate);
    expect(() => credit402.route({ amount: -1 })).toThrow(Credit402ConfigError);
    expect(() => credit402.route({ amount: -1 })).toThrow(/^ERR_ROUTE_AMOUNT: credit402\.route\(\): amount/);
    expect(() => credit402.route({ amount: 1, currency: 'jpy' })).toThrow(expect.objectContaining({ code: 'ERR_ROUTE_CURRENCY' }));
    expect(() => credit402.route(null as unknown as RouteConfig)).toThrow(expect.objectContaining({ code: 'ERR_ROUTES' }));
    expect(() => credit402.route(null as unknown as RouteConfig)).toThrow(/^ERR_ROUTES: credit402\.route\(\) must be an object with at least an amount$/);
    expect(() => credit402.route({ amount: 1, description: '' })).toThrow(/^ERR_ROUTE_DESCRIPTION: credit402\.route\(\): description must be a non-empty string when given$/);
    for (const mount of ['t/:tenant', '/t/', '/t/:', '/t/*', '', 42]) {
      expect(() => credit402.route({ amount: 1 }, { mount } as { mount: string }), String(mount)).toThrow(expect.objectContaining({ code: 'ERR_ROUTE_MOUNT' }));
    }
  });
});
