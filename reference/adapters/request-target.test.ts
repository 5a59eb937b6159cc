// The adapters on raw request targets: ambiguous ones refused 400 before any effect (CR-4.10), paid ones routed as matched (CR-4.9).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gate } from '../gate/index.ts';
import { AMBIGUOUS_REQUESTS } from 'credit402-tooling/testing/ambiguous-requests';
import { recordingGate as recordingGateOf } from 'credit402-tooling/testing/recording-gate';
import { credit402Middleware } from './express/express.ts';
import { credit402Fastify, credit402FrameworkErrors } from './fastify/fastify.ts';
import { applyCredit402 } from './node-http/node-http.ts';

const CLIENT = 'f'.repeat(64);
const SPEND = Buffer.from(JSON.stringify({ clientId: CLIENT })).toString('base64');

/** A gate over a store and processor that record every call; the client has 10000 units. */
const recordingGate = () =>
  recordingGateOf(CLIENT, 10_000, { 'GET /api/weather': { amount: 500 }, 'POST /api/translate': { amount: 2500 }, 'GET /api/unrouted': { amount: 5 } });

/** The handler every app mounts on the two routed gated paths and `/free`: it answers the url it was routed with. */
const answer = (url: string | undefined, paid: unknown) => JSON.stringify({ handled: url, paid: paid !== undefined });

const hosts: Record<string, (gate: Gate) => Promise<Server>> = {
  'plain node:http': async (gate) => createServer((req, res) => {
    void applyCredit402(gate, req, res).then((applied) => {
      if (applied.answered) return;
      const path = (req.url ?? '').split('?')[0];
      if (path === '/api/weather' || path === '/api/translate' || path === '/free') res.end(answer(req.url, applied.payment));
      else res.writeHead(404).end();
    });
  }),
  ...Object.fromEntries(Object.entries({ 'express 5': express5, 'express 4': express4 }).map(([name, express]) => [name, async (gate: Gate) => {
    const app = express();
    app.set('case sensitive routing', true).set('strict routing', true);
    app.use(credit402Middleware(gate));
    for (const path of ['/api/weather', '/free']) app.get(path, (req, res) => void res.end(answer(req.url, res.locals.credit402)));
    app.post('/api/translate', (req, res) => void res.end(answer(req.url, res.locals.credit402)));
    return createServer(app);
  }])),
  fastify: async (gate) => {
    const app = Fastify({ frameworkErrors: credit402FrameworkErrors });
    await app.register(credit402Fastify, { gate });
    for (const path of ['/api/weather', '/free']) app.get(path, async (req, reply) => reply.send(answer(req.url, req.credit402)));
    app.post('/api/translate', async (req, reply) => reply.send(answer(req.url, req.credit402)));
    await app.ready();
    return app.server;
  },
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Sends `method target` with the request target exactly as written. */
async function send(server: Server, method: string, target: string, payment?: string): Promise<{ status: number; body: string }> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path: target, headers: payment ? { payment } : {} }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe.each(Object.keys(hosts))('the adapter on %s', (host) => {
  const start = async () => {
    const { gate, calls } = await recordingGate();
    const server = await (hosts[host] as (gate: Gate) => Promise<Server>)(gate);
    servers.push(server);
    return { server, calls };
  };

  // A HEAD answer has no body to read; the gate's own test covers HEAD.
  it.each(AMBIGUOUS_REQUESTS.filter(([method]) => method !== 'HEAD'))('CR-4.10 answers %s %s 400 ambiguous_request_target, paid or not, before any store or processor call', async (method, target) => {
    const { server, calls } = await start();
    for (const payment of [undefined, SPEND]) {
      const { status, body } = await send(server, method, target, payment);
      expect(status).toBe(400);
      expect(JSON.parse(body)).toEqual({ error: 'ambiguous_request_target', message: expect.stringMatching(/^Ambiguous request target: /) });
    }
    expect(calls).toEqual([]);
  });

  it('CR-4.9 hands the router the path the gate matched: a paid /api/%77eather reaches the handler, charged once', async () => {
    const { server, calls } = await start();
    for (const target of ['/api/%77eather?city=Oslo', '/%61pi/weather', 'http://x/api/we%61ther?city=Oslo', 'HTTPS://x/api/weather']) {
      const { status, body } = await send(server, 'GET', target, SPEND);
      expect(status, `${target}: ${body}`).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ paid: true });
    }
    expect((await send(server, 'POST', '/api/tr%61nslate', SPEND)).status).toBe(200);
    expect(calls.filter((call) => call === 'store.deductBalance')).toHaveLength(5);
  });

  it('CR-4.9 leaves free variants free: nothing is read or deducted, no gated handler runs', async () => {
    const { server, calls } = await start();
    for (const target of ['/api/%57eather', '/api%2Fweather', '//api/weather', '/API/weather', '/api/weather/', 'http://x?/api/weather']) {
      const { status, body } = await send(server, 'GET', target, SPEND);
      expect(status, `${target}: ${body}`).toBe(404);
    }
    expect((await send(server, 'GET', '/free', 'not base64')).status).toBe(200);
    expect(calls).toEqual([]);
  });
});

describe('the Fastify plugin decides on the route its router matched (CR-4.9)', () => {
  it('leaves a gated route without a handler free: 404, nothing read or deducted', async () => {
    const { gate, calls } = await recordingGate();
    const server = await (hosts.fastify as (gate: Gate) => Promise<Server>)(gate);
    servers.push(server);
    expect((await send(server, 'GET', '/api/unrouted', SPEND)).status).toBe(404);
    expect((await send(server, 'GET', '/api/unrouted')).status).toBe(404);
    expect(calls).toEqual([]);
  });
});

describe('the Express middleware mounted under a path (CR-4.9)', () => {
  it('hands the router the matched path within the mount, so a paid /api/%77eather reaches /api/weather', async () => {
    const { gate, calls } = await recordingGate();
    const app = express5();
    app.use('/api', credit402Middleware(gate));
    app.get('/api/weather', (req, res) => void res.end(answer(req.originalUrl, res.locals.credit402)));
    const server = createServer(app);
    servers.push(server);
    const paid = await send(server, 'GET', '/api/%77eather?city=Oslo', SPEND);
    expect(paid.status, paid.body).toBe(200);
    expect(JSON.parse(paid.body)).toEqual({ handled: '/api/%77eather?city=Oslo', paid: true });
    expect(calls.filter((call) => call === 'store.deductBalance')).toHaveLength(1);
  });
});
