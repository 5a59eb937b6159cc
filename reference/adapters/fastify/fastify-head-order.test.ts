// The Fastify plugin prices HEAD routes the same whatever the order Fastify declares them in (CR-4.8, CR-4.15).
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type Gate } from '../../gate/index.ts';
import { decodeBase64Json } from '../../protocol/base64-json.ts';
import { MemoryStore } from '../../stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { credit402Fastify } from './fastify.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CLIENT = 'd'.repeat(64);
const SPEND = Buffer.from(JSON.stringify({ clientId: CLIENT })).toString('base64');
const handler = async () => 'ok';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An app (`exposeHeadRoutes` as given) and a gate over a store where the client has 10000 units; the plugin is registered by the test. */
async function setUp(exposeHeadRoutes: boolean) {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 10_000);
  const gate: Gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor() });
  const app = Fastify({ exposeHeadRoutes });
  apps.push(app);
  /** The price the challenge of `method url` asks, and the route key a paid request to it is recorded under. */
  const priced = async (method: 'GET' | 'HEAD', url: string) => {
    const challenge = await app.inject({ method, url });
    const decoded = decodeBase64Json(String(challenge.headers['payment-required']));
    const paid = await app.inject({ method, url, headers: { payment: SPEND } });
    const records = (await store.listTransactions?.(CLIENT)) ?? [];
    const last = records.at(-1);
    return { challenge: challenge.statusCode, amount: decoded.ok ? (decoded.value as { accepts: Array<{ amount: number }> }).accepts[0]?.amount : undefined, paid: paid.statusCode, key: last && 'resource' in last ? last.resource : undefined };
  };
  return { app, gate, priced };
}

describe.each([true, false])('HEAD routes with exposeHeadRoutes %s', (exposeHeadRoutes) => {
  it('prices an explicit HEAD route with its own configuration as itself, declared before or after its GET route', async () => {
    const { app, gate, priced } = await setUp(exposeHeadRoutes);
    await app.register(credit402Fastify, { gate });
    app.head('/before', { config: { credit402: { amount: 100 } } }, handler);
    app.get('/before', { config: { credit402: { amount: 300 } } }, handler);
    // Fastify refuses a HEAD route declared after the HEAD route it exposed for the GET route: that one is not exposed here.
    app.get('/after', { exposeHeadRoute: false, config: { credit402: { amount: 300 } } }, handler);
    app.head('/after', { config: { credit402: { amount: 100 } } }, handler);
    for (const path of ['/before', '/after']) {
      expect(await priced('HEAD', path), path).toEqual({ challenge: 402, amount: 100, paid: 200, key: `HEAD ${path}` });
      expect(await priced('GET', path), path).toEqual({ challenge: 402, amount: 300, paid: 200, key: `GET ${path}` });
    }
  });

  it('prices a HEAD route declared with its GET route\'s configuration as that GET route, before, after or apart from it', async () => {
    const { app, gate, priced } = await setUp(exposeHeadRoutes);
    await app.register(credit402Fastify, { gate });
    const first = { credit402: { amount: 300 } };
    const second = { credit402: { amount: 200 } };
    app.head('/before', { config: first }, handler);
    app.get('/before', { config: first }, handler);
    app.get('/apart', { exposeHeadRoute: false, config: second }, handler);
    app.get('/between', { config: { credit402: { amount: 50 } } }, handler);
    app.head('/apart', { config: second }, handler);
    expect(await priced('HEAD', '/before')).toEqual({ challenge: 402, amount: 300, paid: 200, key: 'GET /before' });
    expect(await priced('HEAD', '/apart')).toEqual({ challenge: 402, amount: 200, paid: 200, key: 'GET /apart' });
  });
});

describe('HEAD routes Fastify exposes for GET routes declared before the plugin', () => {
  it('prices each as its GET route whatever the order their first requests come in', async () => {
    const { app, gate, priced } = await setUp(true);
    app.get('/a', { config: { credit402: { amount: 300 } } }, handler);
    app.get('/b', { config: { credit402: { amount: 200 } } }, handler);
    await app.register(credit402Fastify, { gate });
    expect(await priced('GET', '/a')).toMatchObject({ amount: 300, key: 'GET /a' });
    expect(await priced('GET', '/b')).toMatchObject({ amount: 200, key: 'GET /b' });
    expect(await priced('HEAD', '/a')).toEqual({ challenge: 402, amount: 300, paid: 200, key: 'GET /a' });
    expect(await priced('HEAD', '/b')).toEqual({ challenge: 402, amount: 200, paid: 200, key: 'GET /b' });
  });
});
