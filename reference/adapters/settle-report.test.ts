// Every adapter reports the final status of each paid answer to the gate (`settle`), whatever it is, and keeps no refund policy.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type Gate, type ServeOutcome } from '../gate/index.ts';
import type { Processor } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { credit402Middleware } from './express/express.ts';
import { credit402Fastify } from './fastify/fastify.ts';
import { applyCredit402 } from './node-http/node-http.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CLIENT = 'f'.repeat(64);
const STATUSES = { '/ok': 200, '/teapot': 418, '/throws': 500, '/unavailable': 503 } as const;
const PATHS = Object.keys(STATUSES) as Array<keyof typeof STATUSES>;
const unreachable = (): never => {
  throw new Error('no card payment happens in these tests');
};
const processor: Processor = { getCardFingerprint: unreachable, findOrCreateCustomer: unreachable, charge: unreachable };

/** A real gate whose serve decisions also record each outcome they are settled with. */
async function recordingGate(outcomes: ServeOutcome[]): Promise<Gate> {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 10_000);
  const routes = Object.fromEntries(PATHS.map((path) => [`GET ${path}`, { amount: 100 }]));
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor, routes, refundOnHandlerError: true });
  return {
    ...gate,
    async handle(request) {
      const decision = await gate.handle(request);
      if (decision.action !== 'serve') return decision;
      const settle = (outcome: ServeOutcome): Promise<void> => {
        outcomes.push(outcome);
        return decision.settle(outcome);
      };
      return Object.freeze({ ...decision, settle });
    },
  };
}

/** Answers each path with its status; `/throws` throws in the handler. */
function answer(path: string, send: (status: number) => void): void {
  if (path === '/throws') throw new Error('handler failed');
  send(STATUSES[path as keyof typeof STATUSES] ?? 404);
}

const servers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()));
});

async function listen(server: Server): Promise<string> {
  servers.push(() => new Promise((resolve) => server.close(resolve)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const hosts: Record<string, (gate: Gate) => Promise<string>> = {
  async fastify(gate) {
    const app = Fastify();
    await app.register(credit402Fastify, { gate });
    for (const path of PATHS) app.get(path, async (request, reply) => answer(path, (status) => void reply.code(status).send({ decorated: 'credit402Refund' in request })));
    await app.listen({ port: 0, host: '127.0.0.1' });
    servers.push(() => app.close());
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  },
  async express(gate) {
    const app = express();
    app.use(credit402Middleware(gate));
    for (const path of PATHS) app.get(path, (_req, res) => answer(path, (status) => void res.status(status).json({})));
    return listen(createServer(app));
  },
  async 'node:http'(gate) {
    return listen(createServer((req, res) => {
      applyCredit402(gate, req, res)
        .then((applied) => applied.answered || answer(req.url ?? '/', (status) => void res.writeHead(status).end('{}')))
        .catch(() => void res.writeHead(500).end());
    }));
  },
};

describe.each(Object.keys(hosts))('the %s adapter', (host) => {
  it('settles every paid answer with its final status, once', async () => {
    const outcomes: ServeOutcome[] = [];
    const url = await (hosts[host] as (gate: Gate) => Promise<string>)(await recordingGate(outcomes));
    const statuses = [];
    for (const path of PATHS) statuses.push((await paidFetch(url, `GET ${path}`, { clientId: CLIENT })).status);
    expect(statuses).toEqual([200, 418, 500, 503]);
    await expect.poll(() => outcomes.length).toBe(PATHS.length);
    expect(outcomes).toEqual(statuses.map((status) => ({ status })));
    expect(await paidFetch(url, 'GET /ok')).toMatchObject({ status: 402 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(outcomes).toHaveLength(PATHS.length);
  });
});

describe('the Fastify plugin', () => {
  it('publishes the payment on the request, and no refund plumbing', async () => {
    const url = await (hosts.fastify as (gate: Gate) => Promise<string>)(await recordingGate([]));
    expect((await paidFetch(url, 'GET /ok', { clientId: CLIENT })).body).toEqual({ decorated: false });
  });
});
