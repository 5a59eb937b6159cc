// Tests of refundOnHandlerError through both adapters: a paid request whose handler fails gets its price back, once.
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createCredit402 } from '../credit402.ts';
import type { Gate } from '../gate/index.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { listenLocal } from 'credit402-tooling/testing/listen-local';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { credit402Middleware } from './express/express.ts';
import { credit402Fastify } from './fastify/fastify.ts';

const PATHS = ['/ok', '/throws', '/unavailable', '/missing'] as const;

function gateFor(store: MemoryStore, refundOnHandlerError: boolean): Gate {
  return createCredit402({
    stripeSecretKey: 'sk_test_refunds',
    stripePublishableKey: 'pk_test_refunds',
    serverSecret: 'credit402-handler-refund-test-secret-0123456789',
    store,
    routes: Object.fromEntries(PATHS.map((path) => [`GET ${path}`, { amount: 500 }])),
    refundOnHandlerError,
    onError: () => {},
  });
}

/** Starts an app whose four paid routes answer 200, throw, answer 503 and answer 404. */
const apps = {
  async fastify(gate: Gate) {
    const app = Fastify();
    await app.register(credit402Fastify, { gate });
    app.get('/ok', async () => ({ ok: true }));
    app.get('/throws', async () => {
      throw new Error('handler failed');
    });
    app.get('/unavailable', async (_request, reply) => reply.code(503).send({ busy: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
  async express(gate: Gate) {
    const app = express();
    app.use(credit402Middleware(gate));
    app.get('/ok', (_req, res) => void res.json({ ok: true }));
    app.get('/throws', () => {
      throw new Error('handler failed');
    });
    app.get('/unavailable', (_req, res) => void res.status(503).json({ busy: true }));
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(500).end());
    return listenLocal(app);
  },
};

describe.each(['fastify', 'express'] as const)('refundOnHandlerError on %s', (framework) => {
  let close: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await close?.();
  });

  async function balancesAfterEachRoute(refund: boolean): Promise<Record<string, { status: number; balance: number | undefined }>> {
    const store = new MemoryStore();
    const app = await apps[framework](gateFor(store, refund));
    close = app.close;
    const out: Record<string, { status: number; balance: number | undefined }> = {};
    for (const [index, path] of PATHS.entries()) {
      const clientId = String(index).repeat(64);
      await store.addBalance(clientId, 'usd', 10_000);
      const response = await paidFetch(app.url, `GET ${path}`, { clientId });
      // The refund runs once the answer is sent: wait for it when one is due, then give others a moment too.
      const balance = async () => (await store.getClient(clientId))?.balances.usd;
      if (refund && response.status >= 500) await expect.poll(balance, { timeout: 2_000 }).toBe(10_000);
      else await new Promise((resolve) => setTimeout(resolve, 50));
      out[path] = { status: response.status, balance: await balance() };
    }
    return out;
  }

  it('gives the price back when the handler throws or answers 5xx, and only then', async () => {
    // A gated route without a handler: Fastify's router reaches no gated handler, so the plugin leaves it free
    // (CR-4.9); Express routes after the middleware, which charges it, and a 404 is not refunded.
    const missing = framework === 'fastify' ? { status: 404, balance: 10_000 } : { status: 404, balance: 9_500 };
    expect(await balancesAfterEachRoute(true)).toEqual({
      '/ok': { status: 200, balance: 9_500 },
      '/throws': { status: 500, balance: 10_000 },
      '/unavailable': { status: 503, balance: 10_000 },
      '/missing': missing,
    });
  });

  it('keeps the deduction when the option is off (the default)', async () => {
    const balances = await balancesAfterEachRoute(false);
    expect(balances['/throws']).toEqual({ status: 500, balance: 9_500 });
    expect(balances['/unavailable']).toEqual({ status: 503, balance: 9_500 });
  });
});
