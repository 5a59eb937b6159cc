// The connect-style middleware on Express 5, Express 4 and plain node:http, over real sockets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type Gate } from '../../gate/index.ts';
import type { Processor } from '../../processor/processor.ts';
import { MemoryStore } from '../../stores/memory/memory-store.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { credit402Middleware } from './express.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CLIENT = 'd'.repeat(64);
const unreachable = (): never => {
  throw new Error('no card payment happens in these tests');
};
const processor: Processor = { getCardFingerprint: unreachable, findOrCreateCustomer: unreachable, charge: unreachable };

async function gateWithBalance(): Promise<Gate> {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 1_000);
  return createGate({ ...TEST_GATE_KEYS, store, processor, routes: { 'GET /paid': { amount: 400 } } });
}

type Handler = (req: { url?: string }, res: { end(body: string): void; locals?: Record<string, unknown> }) => void;
const handler: Handler = (req, res) => res.end(JSON.stringify({ url: req.url, paid: res.locals?.credit402 ?? null }));

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A server of an `express` app (Express 5 or 4) with the middleware, and the handler on /paid and /free. */
const expressHost = (express: typeof express5 | typeof express4) => (gate: Gate): Server => {
  const app = express();
  app.use(credit402Middleware(gate));
  app.get('/paid', handler);
  app.get('/free', handler);
  return createServer(app);
};

const hosts: Record<string, (gate: Gate) => Server> = {
  'express 5': expressHost(express5),
  'express 4': expressHost(express4),
  'plain node:http': (gate) => {
    const middleware = credit402Middleware(gate);
    return createServer((req, res) => {
      void middleware(req, res, (error?: unknown) => {
        if (error) res.writeHead(500).end();
        else handler(req, res);
      });
    });
  },
};

describe.each(Object.keys(hosts))('credit402Middleware on %s', (host) => {
  it('challenges an unpaid request, serves a paid one with payment-response, passes a free one', async () => {
    const url = await listen((hosts[host] as (gate: Gate) => Server)(await gateWithBalance()));
    const challenge = await paidFetch(url, 'GET /paid');
    expect(challenge.status).toBe(402);
    expect(challenge.paymentRequired).toEqual(challenge.body);

    const paid = await paidFetch(url, 'GET /paid?x=1', { clientId: CLIENT });
    expect(paid.status).toBe(200);
    expect(paid.paymentResponse).toEqual({ success: true, creditsRemaining: 600, clientId: CLIENT });
    expect(paid.body).toMatchObject({ url: '/paid?x=1' });

    const free = await paidFetch(url, 'GET /free', 'not base64 at all');
    expect(free.status).toBe(200);
    expect(free.paymentResponse).toBeUndefined();
  });
});
