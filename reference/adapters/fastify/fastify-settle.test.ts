// The Fastify plugin's early settlement (`credit402Settle`): an upstream failure a handler reports gives the price back once, and the answer settles nothing more.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type ServeOutcome } from '../../gate/index.ts';
import type { Processor } from '../../processor/processor.ts';
import { MemoryStore } from '../../stores/memory/memory-store.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { credit402Fastify, credit402Settle } from './fastify.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CLIENT = 'e'.repeat(64);
const unreachable = (): never => {
  throw new Error('no card payment happens in these tests');
};
const processor: Processor = { getCardFingerprint: unreachable, findOrCreateCustomer: unreachable, charge: unreachable };

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** A Fastify app with the plugin and `GET /proxied` (100 units), whose handler settles early with `outcome` (when given) and answers `status`. */
async function app(outcome: ServeOutcome | undefined, status: number): Promise<{ url: string; store: MemoryStore; settled: Array<Promise<void>> }> {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 10_000);
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor, routes: { 'GET /proxied': { amount: 100 } } });
  const fastify = Fastify();
  await fastify.register(credit402Fastify, { gate });
  const settled: Array<Promise<void>> = [];
  fastify.get('/proxied', async (request, reply) => {
    if (outcome !== undefined) {
      settled.push(credit402Settle(request, outcome));
      settled.push(credit402Settle(request, outcome));
    }
    return reply.code(status).send({ status });
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  closing.push(() => fastify.close());
  return { url: `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`, store, settled };
}

describe('credit402Settle (the Fastify plugin)', () => {
  it('CR-15.3 gives the whole price back once for an upstream failure settled by the handler; the answer then settles nothing', async () => {
    const { url, store, settled } = await app({ status: 502, upstreamFailed: true }, 502);
    const response = await paidFetch(url, 'GET /proxied', { clientId: CLIENT, requestId: 'early-settle-1' });
    expect(response.status).toBe(502);
    await Promise.all(settled);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await store.getClient(CLIENT))?.balances.usd).toBe(10_000);
    // The request id was given back with the price: the same request is a new deduction.
    expect((await paidFetch(url, 'GET /proxied', { clientId: CLIENT, requestId: 'early-settle-1' })).paymentResponse).toMatchObject({ creditsRemaining: 9_900 });
  });

  it('keeps the price when the handler settles nothing early (a 502 the handler answered itself is its answer)', async () => {
    const { url, store } = await app(undefined, 502);
    expect((await paidFetch(url, 'GET /proxied', { clientId: CLIENT })).status).toBe(502);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await store.getClient(CLIENT))?.balances.usd).toBe(9_900);
  });

  it('resolves at once for a request that was not paid', async () => {
    const { url, settled } = await app({ status: 502, upstreamFailed: true }, 200);
    const fastify = Fastify();
    closing.push(() => fastify.close());
    expect((await paidFetch(url, 'GET /proxied')).status).toBe(402);
    expect(settled).toEqual([]);
    let resolved = false;
    fastify.get('/free', async (request) => {
      await credit402Settle(request, { status: 502, upstreamFailed: true });
      resolved = true;
      return {};
    });
    expect((await fastify.inject('/free')).statusCode).toBe(200);
    expect(resolved).toBe(true);
  });
});
