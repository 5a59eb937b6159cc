// The Fastify plugin's per-route form: routes declared with `config: { credit402 }` are priced on the route Fastify matched.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../../config/config-error.ts';
import { decodeBase64Json } from '../../protocol/base64-json.ts';
import type { RouteConfig } from '../../protocol/types.ts';
import { createGate } from '../../gate/index.ts';
import { MemoryStore } from '../../stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { credit402Fastify, credit402FrameworkErrors } from './fastify.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CLIENT = 'c'.repeat(64);
const SPEND = Buffer.from(JSON.stringify({ clientId: CLIENT })).toString('base64');

/** A gate (table `routes` when given) over a memory store where the client has 10000 units. */
async function setUp(routes?: Record<string, RouteConfig>, refundOnHandlerError = false) {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 10_000);
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor(), routes, refundOnHandlerError, onError: () => {} });
  const app = Fastify({ frameworkErrors: credit402FrameworkErrors });
  await app.register(credit402Fastify, { gate });
  apps.push(app);
  const balance = async () => (await store.getClient(CLIENT))?.balances.usd;
  const resources = async () => ((await store.listTransactions?.(CLIENT)) ?? []).map((record) => ('resource' in record ? record.resource : record.type));
  return { app, gate, store, balance, resources };
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

const challengeOf = (header: string | string[] | number | undefined) => {
  const decoded = decodeBase64Json(String(header));
  return decoded.ok ? decoded.value : undefined;
};

describe('the Fastify plugin, per route', () => {
  it('prices a route declared with config.credit402: the challenge names the request path, a paid request is served and recorded under the route key', async () => {
    const { app, balance, resources } = await setUp();
    app.get('/api/users/:id', { config: { credit402: { amount: 500, description: 'A user' } } }, async (request) => ({ id: (request.params as { id: string }).id, paid: request.credit402 }));

    const unpaid = await app.inject({ method: 'GET', url: '/api/users/%37?x=1' });
    expect(unpaid.statusCode).toBe(402);
    expect(challengeOf(unpaid.headers['payment-required'])).toMatchObject({ resource: { url: '/api/users/7', description: 'A user' }, accepts: [{ amount: 500 }] });

    const paid = await app.inject({ method: 'GET', url: '/api/users/7', headers: { payment: SPEND } });
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toEqual({ id: '7', paid: { success: true, creditsRemaining: 9_500, clientId: CLIENT } });
    expect(paid.headers['payment-response']).toBeTruthy();
    expect(await balance()).toBe(9_500);
    expect(await resources()).toEqual(['GET /api/users/:id']);
  });

  it('names a route declared with a regular expression or a named wildcard in the route-key syntax', async () => {
    const { app, resources } = await setUp();
    app.get('/api/users/:id(^.+$)', { config: { credit402: { amount: 5 } } }, async () => 'user');
    app.get('/api/files/*', { config: { credit402: { amount: 5 } } }, async () => 'file');
    expect((await app.inject({ method: 'GET', url: '/api/users/7', headers: { payment: SPEND } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/files/a/b', headers: { payment: SPEND } })).statusCode).toBe(200);
    expect(await resources()).toEqual(['GET /api/users/:id', 'GET /api/files/*']);
  });

  it('prices the HEAD route Fastify exposes for a GET route as that GET route (CR-4.8)', async () => {
    const { app, balance, resources } = await setUp();
    app.get('/files/*', { config: { credit402: { amount: 300 } } }, async () => ({ file: true }));
    expect((await app.inject({ method: 'HEAD', url: '/files/a/b' })).statusCode).toBe(402);
    expect((await app.inject({ method: 'HEAD', url: '/files/a/b', headers: { payment: SPEND } })).statusCode).toBe(200);
    expect(await balance()).toBe(9_700);
    expect(await resources()).toEqual(['GET /files/*']);
  });

  it('leaves every route without the option untouched in an app without a table, and refuses ambiguous targets (CR-4.10), over a real socket', async () => {
    const { app, balance } = await setUp();
    app.get('/api/users/:id', { config: { credit402: { amount: 500 } } }, async () => ({ gated: true }));
    app.get('/free/:name', async () => ({ gated: false }));
    app.post('/api/users/:id', async () => ({ gated: false }));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    for (const route of ['GET /free/x', 'POST /api/users/7']) {
      const response = await paidFetch(base, route, 'not base64 at all');
      expect(response.status, route).toBe(200);
      expect(response.paymentResponse, route).toBeUndefined();
    }
    // On the priced route (its own hook refuses it) and on no route (the plugin's hook refuses it).
    for (const target of ['/api/users/7\\x', '/api\\users/7', '/api/users/7#x', 'ftp://x/api/users/7']) {
      const response = await rawRequest(base, 'GET', target, { payment: SPEND });
      expect(response.status, target).toBe(400);
      expect(JSON.parse(response.body), target).toMatchObject({ error: 'ambiguous_request_target' });
    }
    expect(await balance()).toBe(10_000);
  });

  it('does not gate a per-route route twice when the table has it too: the route config prices it', async () => {
    const { app, balance, resources } = await setUp({ 'GET /api/weather': { amount: 100 }, 'GET /api/table': { amount: 200 } });
    app.get('/api/weather', { config: { credit402: { amount: 400 } } }, async () => ({ weather: true }));
    app.get('/api/table', async () => ({ table: true }));
    expect(challengeOf((await app.inject({ method: 'GET', url: '/api/weather' })).headers['payment-required'])).toMatchObject({ accepts: [{ amount: 400 }] });
    expect((await app.inject({ method: 'GET', url: '/api/weather', headers: { payment: SPEND } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/table', headers: { payment: SPEND } })).statusCode).toBe(200);
    expect(await balance()).toBe(10_000 - 400 - 200);
    expect(await resources()).toEqual(['GET /api/weather', 'GET /api/table']);
  });

  it('adds the gate\'s CORS headers to a per-route answer; the preflight of a per-route route stays with the application', async () => {
    const gate = createGate({ ...TEST_GATE_KEYS, store: new MemoryStore(), processor: new FakeProcessor(), cors: { origins: ['https://app.example'] } });
    const app = Fastify();
    apps.push(app);
    await app.register(credit402Fastify, { gate });
    app.get('/api/users/:id', { config: { credit402: { amount: 500 } } }, async () => ({ gated: true }));
    const challenge = await app.inject({ method: 'GET', url: '/api/users/7', headers: { origin: 'https://app.example' } });
    expect(challenge.statusCode).toBe(402);
    expect(challenge.headers['access-control-allow-origin']).toBe('https://app.example');
    const preflight = await app.inject({ method: 'OPTIONS', url: '/api/users/7', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
    expect(preflight.statusCode).toBe(404);
  });

  it('throws the coded configuration error where an invalid route is declared: from app.get, or from ready() inside a plugin', async () => {
    const { app } = await setUp();
    expect(() => app.get('/bad', { config: { credit402: { amount: -1 } } }, async () => 'never')).toThrow(Credit402ConfigError);
    try {
      app.get('/bad-currency', { config: { credit402: { amount: 1, currency: 'jpy' } } }, async () => 'never');
    } catch (error) {
      expect((error as Credit402ConfigError).code).toBe('ERR_ROUTE_CURRENCY');
    }
    const scoped = Fastify();
    apps.push(scoped);
    await scoped.register(credit402Fastify, { gate: (await setUp()).gate });
    scoped.register(async (child) => {
      child.get('/bad', { config: { credit402: { amount: 1, minTopUp: 0 } } }, async () => 'never');
    });
    await expect(scoped.ready()).rejects.toMatchObject({ name: 'Credit402ConfigError', code: 'ERR_ROUTE_MIN_TOP_UP' });
  });

  it('still prices a route declared before the plugin was registered, on its first request', async () => {
    const store = new MemoryStore();
    await store.addBalance(CLIENT, 'usd', 10_000);
    const gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor() });
    const app = Fastify();
    apps.push(app);
    app.get('/early', { config: { credit402: { amount: 700 } } }, async () => ({ early: true }));
    app.get('/early-invalid', { config: { credit402: { amount: -1 } } }, async () => ({ early: true }));
    app.register(credit402Fastify, { gate });
    expect((await app.inject({ method: 'GET', url: '/early' })).statusCode).toBe(402);
    expect((await app.inject({ method: 'GET', url: '/early', headers: { payment: SPEND } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'HEAD', url: '/early' })).statusCode).toBe(402);
    expect((await app.inject({ method: 'GET', url: '/early-invalid', headers: { payment: SPEND } })).statusCode).toBe(500);
    expect((await store.getClient(CLIENT))?.balances.usd).toBe(9_300);
  });

  it('over a real socket: challenges, serves, and gives the price back when the handler fails (refundOnHandlerError)', async () => {
    const { app, balance } = await setUp(undefined, true);
    app.get('/api/users/:id', { config: { credit402: { amount: 500 } } }, async (request) => ({ creditsRemaining: request.credit402?.creditsRemaining }));
    app.post('/api/fails', { config: { credit402: { amount: 800 } } }, async () => {
      throw new Error('handler failed');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    expect(await paidFetch(url, 'GET /api/users/7')).toMatchObject({ status: 402, paymentRequired: { resource: { url: '/api/users/7' } } });
    expect(await paidFetch(url, 'GET /api/users/7', { clientId: CLIENT })).toMatchObject({ status: 200, body: { creditsRemaining: 9_500 }, paymentResponse: { creditsRemaining: 9_500 } });
    expect((await paidFetch(url, 'POST /api/fails', { clientId: CLIENT })).status).toBe(500);
    await expect.poll(balance, { timeout: 2_000 }).toBe(9_500);
  });
});
