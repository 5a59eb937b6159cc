// What the framework refuses before the handler is not charged (CR-4.7): malformed percent-encodings Express's router refuses, bodies Fastify refuses, on real sockets.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import Fastify, { type RouteShorthandOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type Gate } from '../gate/index.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { credit402Middleware } from './express/express.ts';
import { credit402Fastify, credit402FrameworkErrors } from './fastify/fastify.ts';
import { applyCredit402 } from './node-http/node-http.ts';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const CLIENT = 'e'.repeat(64);
const SPEND = Buffer.from(JSON.stringify({ clientId: CLIENT })).toString('base64');
const PATTERN_ROUTES: Record<string, RouteConfig> = { 'GET /api/users/:id': { amount: 300 }, 'GET /files/*': { amount: 200 } };

/** A gate over a memory store where the client has 10000 units; `balance()` reads it, `ran` lists the handlers that ran. */
async function setUp(routes: Record<string, RouteConfig> | undefined) {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 10_000);
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor(), routes, onError: () => {} });
  return { gate, balance: async () => (await store.getClient(CLIENT))?.balances.usd, ran: [] as string[] };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends `method target` as written, with `headers` and a raw `body`; resolves to the status, the protocol headers and the body. */
function send(url: string, method: string, target: string, headers: Record<string, string> = {}, body?: string | Buffer) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; paymentResponse: string | undefined; body: string }>((resolve, reject) => {
    const outgoing = request({ host: hostname, port, method, path: target, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, paymentResponse: response.headers['payment-response'] as string | undefined, body: text }));
    });
    // A server that answers before reading the whole body may reset the connection while it is written.
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

type Ran = string[];
const hosts: Record<string, (gate: Gate, ran: Ran) => Promise<Server>> = {
  ...Object.fromEntries(Object.entries({ 'express 5': express5, 'express 4': express4 }).map(([name, express]) => [name, async (gate: Gate, ran: Ran) => {
    const app = express();
    app.set('case sensitive routing', true).set('strict routing', true);
    app.use(credit402Middleware(gate));
    app.get('/api/users/:id', (req, res) => {
      ran.push(req.url);
      res.json({ id: req.params.id });
    });
    app.get(express === express5 ? '/files/{*rest}' : '/files/*', (req, res) => {
      ran.push(req.url);
      res.json({ file: req.url });
    });
    return createServer(app);
  }])),
  'plain node:http': async (gate, ran) => createServer((req, res) => {
    void applyCredit402(gate, req, res).then((applied) => {
      if (applied.answered) return;
      ran.push(req.url ?? '');
      res.end(JSON.stringify({ url: req.url }));
    });
  }),
  fastify: async (gate, ran) => {
    const app = Fastify({ frameworkErrors: credit402FrameworkErrors });
    await app.register(credit402Fastify, { gate });
    app.get('/api/users/:id', async (request) => {
      ran.push(request.url);
      return { id: (request.params as { id: string }).id };
    });
    app.get('/files/*', async (request) => {
      ran.push(request.url);
      return { file: request.url };
    });
    await app.ready();
    return app.server;
  },
};

describe.each(Object.keys(hosts))('table gating on %s', (host) => {
  it.each(['/api/users/%FF', '/api/users/%', '/api/users/%zz', '/api/users/a%E3o', '/files/%FF', '/files/a/%C3', '/files/%u0041'])(
    'refuses %s, a path with a malformed percent-encoding that routers decode differently, as ambiguous, unpaid or paid, charging nothing (CR-4.7, CR-4.10)',
    async (target) => {
      const { gate, balance, ran } = await setUp(PATTERN_ROUTES);
      const url = await listen(await (hosts[host] as (typeof hosts)[string])(gate, ran));
      for (const headers of [{}, { payment: SPEND }] as Record<string, string>[]) {
        const answer = await send(url, 'GET', target, headers);
        expect(answer.status, answer.body).toBe(400);
        expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
        expect(answer.paymentResponse).toBeUndefined();
      }
      expect(ran).toEqual([]);
      expect(await balance()).toBe(10_000);
    },
  );

  it('still serves and charges a well-formed percent-encoding in a pattern segment (CR-4.12)', async () => {
    const { gate, balance, ran } = await setUp(PATTERN_ROUTES);
    const url = await listen(await (hosts[host] as (typeof hosts)[string])(gate, ran));
    const answer = await send(url, 'GET', '/api/users/Jos%C3%A9', { payment: SPEND });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.paymentResponse).toBeTruthy();
    expect(ran).toHaveLength(1);
    expect(await balance()).toBe(9_700);
  });
});

/** A Fastify app with the plugin and a 1 MB body limit, whose paid `POST /api/translate` (declared with `options`) answers its JSON body's text. */
async function fastifyApp(gate: Gate, ran: Ran, options: RouteShorthandOptions): Promise<Server> {
  const app = Fastify({ frameworkErrors: credit402FrameworkErrors, bodyLimit: 1024 * 1024 });
  await app.register(credit402Fastify, { gate });
  app.post('/api/translate', options, async (request) => {
    ran.push(request.url);
    return { text: (request.body as { text?: string }).text, paid: request.credit402 !== undefined };
  });
  await app.ready();
  return app.server;
}

const PER_ROUTE: RouteShorthandOptions = { config: { credit402: { amount: 2_500 } } };
/** The POST route's options in each Fastify app: table-gated, or declared with config.credit402 (with a body schema or without). */
const fastifyRoutes: Record<string, RouteShorthandOptions> = {
  table: {},
  'per-route': PER_ROUTE,
  'per-route, with a body schema': { ...PER_ROUTE, schema: { body: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
};

describe.each(Object.keys(fastifyRoutes))('the Fastify plugin, %s', (kind) => {
  const start = async () => {
    const { gate, balance, ran } = await setUp(kind === 'table' ? { 'POST /api/translate': { amount: 2_500 } } : undefined);
    const url = await listen(await fastifyApp(gate, ran, fastifyRoutes[kind] as RouteShorthandOptions));
    return { url, balance, ran };
  };

  it.each([
    ['invalid JSON', { 'content-type': 'application/json' }, '{"text": "hello"', 400],
    ['a body over the body limit', { 'content-type': 'application/json' }, `{"text": "${'x'.repeat(2 * 1024 * 1024)}"}`, 413],
    ['a content type Fastify cannot parse', { 'content-type': 'application/x-unknown' }, 'hello', 415],
  ] as const)('does not charge a paid POST with %s, which Fastify refuses before the handler (CR-4.7)', async (_why, headers, body, status) => {
    const { url, balance, ran } = await start();
    const answer = await send(url, 'POST', '/api/translate', { ...headers, payment: SPEND }, body);
    expect(answer.status, answer.body).toBe(status);
    expect(answer.paymentResponse).toBeUndefined();
    expect(ran).toEqual([]);
    expect(await balance()).toBe(10_000);
  });

  it('challenges an unpaid POST with a valid body, and serves and charges a paid one once', async () => {
    const { url, balance, ran } = await start();
    const headers = { 'content-type': 'application/json' };
    expect((await send(url, 'POST', '/api/translate', headers, '{"text":"hi"}')).status).toBe(402);
    const paid = await send(url, 'POST', '/api/translate', { ...headers, payment: SPEND }, '{"text":"hi"}');
    expect(paid.status, paid.body).toBe(200);
    expect(JSON.parse(paid.body)).toEqual({ text: 'hi', paid: true });
    expect(paid.paymentResponse).toBeTruthy();
    expect(ran).toEqual(['/api/translate']);
    expect(await balance()).toBe(7_500);
  });

  it.runIf(kind === 'per-route, with a body schema')('does not charge a paid POST whose body the route schema refuses (CR-4.7)', async () => {
    const { url, balance, ran } = await start();
    const answer = await send(url, 'POST', '/api/translate', { 'content-type': 'application/json', payment: SPEND }, '{"other":1}');
    expect(answer.status, answer.body).toBe(400);
    expect(answer.paymentResponse).toBeUndefined();
    expect(ran).toEqual([]);
    expect(await balance()).toBe(10_000);
  });

  it('refuses an ambiguous target as such, before the body is read (CR-4.10)', async () => {
    const { url, balance } = await start();
    const answer = await rawRequest(url, 'POST', '/api\\translate', { 'content-type': 'application/x-unknown', payment: SPEND });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
    expect(await balance()).toBe(10_000);
  });
});
