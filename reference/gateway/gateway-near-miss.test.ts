// The gateway in front of a router that matches more loosely than the gate (CR-15.5): near-misses of gated routes are answered 404, never forwarded free; `upstreamMatching` names the upstream's loosenesses.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { NEAR_MISS } from '../gate/index.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { fundedClient, PRICE, useGatewayStack } from 'credit402-tooling/testing/gateway-stack';
import { rawRequest, type RawAnswer } from 'credit402-tooling/testing/raw-request';
import { startGateway } from './start-gateway.ts';

const { upstream: startEchoUpstream, configFor, gateway } = useGatewayStack();

/** The gated routes: one exact path and one pattern, both served by the Express upstream. */
const ROUTES = { 'GET /api/ok': { amount: PRICE }, 'GET /api/users/:id': { amount: PRICE } };

/** The near-misses of `GET /api/ok` of issue 34, and two of `GET /api/users/:id`. */
const NEAR_MISSES = ['/api/ok/', '/API/OK', '/api/ok;jsessionid=1', '//api/ok', '/api//ok', '/API/users/7', '/api/users/7/'];

/** The `payment` header spending from `clientId`'s balance. */
const spending = (clientId: string): string => Buffer.from(JSON.stringify({ clientId })).toString('base64');

/** An Express 5 app with Express's default routing (case-insensitive, a trailing slash optional) that counts its gated handlers' runs. */
interface ExpressUpstream {
  url: string;
  /** Every request that reached the app, `METHOD target` as received. */
  reached: string[];
  /** How many times a gated route's handler ran. */
  handled: () => number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function expressUpstream(): Promise<ExpressUpstream> {
  const reached: string[] = [];
  let handled = 0;
  const app = express();
  app.use((req, _res, next) => {
    reached.push(`${req.method} ${req.url}`);
    next();
  });
  app.get('/api/ok', (_req, res) => {
    handled++;
    res.json({ route: 'GET /api/ok' });
  });
  app.get('/api/users/:id', (req, res) => {
    handled++;
    res.json({ route: 'GET /api/users/:id', id: req.params.id });
  });
  app.get('/free', (_req, res) => res.json({ route: 'GET /free' }));
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reached, handled: () => handled };
}

/** Whether `answer` is the gateway's 404 to a near-miss: its error code, no protocol header. */
function expectNearMissAnswer(answer: RawAnswer, target: string): void {
  expect(answer.status, `${target}: ${answer.body}`).toBe(404);
  expect(JSON.parse(answer.body), target).toMatchObject({ error: NEAR_MISS });
  expect(answer.headers['payment-required'], target).toBeUndefined();
  expect(answer.headers['payment-response'], target).toBeUndefined();
}

describe('the gateway in front of an Express app with default routing (CR-15.5)', () => {
  it('CR-15.5 answers every near-miss of a gated route 404 by default, unpaid or spending: nothing reaches the upstream, nothing is deducted', async () => {
    const upstream = await expressUpstream();
    const { running, store } = await gateway(upstream.url, { routes: ROUTES });
    const { clientId, balance } = await fundedClient(store, '1');
    for (const target of NEAR_MISSES) {
      expectNearMissAnswer(await rawRequest(running.url, 'GET', target), target);
      expectNearMissAnswer(await rawRequest(running.url, 'GET', target, { payment: spending(clientId) }), target);
      const head = await rawRequest(running.url, 'HEAD', target);
      expect(head.status, `HEAD ${target}`).toBe(404);
      expect(head.headers['payment-required'], `HEAD ${target}`).toBeUndefined();
    }
    expect(upstream.reached).toEqual([]);
    expect(upstream.handled()).toBe(0);
    expect(await balance()).toBe(10_000);
    // The gated routes themselves are paid and served; free paths are forwarded as before.
    expect((await rawRequest(running.url, 'GET', '/api/ok', { payment: spending(clientId) })).status).toBe(200);
    expect((await rawRequest(running.url, 'GET', '/api/users/7?x=1', { payment: spending(clientId) })).status).toBe(200);
    expect((await rawRequest(running.url, 'GET', '/free')).status).toBe(200);
    expect(upstream.reached).toEqual(['GET /api/ok', 'GET /api/users/7?x=1', 'GET /free']);
    expect(upstream.handled()).toBe(2);
    expect(await balance()).toBe(10_000 - 2 * PRICE);
  });

  it('CR-15.5 answers a near-miss with a body 404 without forwarding it, and closes the connection whose body it did not read', async () => {
    const upstream = await startEchoUpstream();
    const { running } = await gateway(upstream.url);
    const { hostname, port } = new URL(running.url);
    const answer = await new Promise<RawAnswer>((resolve, reject) => {
      const outgoing = request({ host: hostname, port, method: 'POST', path: '/PAID/', headers: { 'content-type': 'text/plain', 'content-length': '5' } }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      });
      outgoing.on('error', reject);
      outgoing.end('hello');
    });
    expectNearMissAnswer(answer, 'POST /PAID/');
    expect(answer.headers.connection).toBe('close');
    expect(upstream.seen).toEqual([]);
  });

  it('CR-15.5 with upstreamMatching naming Express\'s loosenesses: refuses their near-misses and forwards the others free, which Express does not route to the gated handler', async () => {
    const upstream = await expressUpstream();
    const { running, store } = await gateway(upstream.url, { routes: ROUTES, upstreamMatching: ['case-insensitive', 'optional-trailing-slash'] });
    const { clientId, balance } = await fundedClient(store, '2');
    for (const target of ['/api/ok/', '/API/OK', '/API/users/7', '/api/users/7/']) {
      expectNearMissAnswer(await rawRequest(running.url, 'GET', target, { payment: spending(clientId) }), target);
    }
    for (const target of ['/api/ok;jsessionid=1', '//api/ok', '/api//ok']) {
      const answer = await rawRequest(running.url, 'GET', target, { payment: spending(clientId) });
      expect(answer.status, target).toBe(404);
      expect(answer.body, target).not.toContain(NEAR_MISS);
    }
    expect(upstream.reached).toEqual(['GET /api/ok;jsessionid=1', 'GET //api/ok', 'GET /api//ok']);
    expect(upstream.handled()).toBe(0);
    expect(await balance()).toBe(10_000);
  });

  it('CR-15.5 with upstreamMatching "exact": forwards every free request as received, as before (the upstream matches as the gate)', async () => {
    const upstream = await startEchoUpstream();
    const { running, store } = await gateway(upstream.url, { upstreamMatching: 'exact' });
    const { clientId, balance } = await fundedClient(store, '3');
    for (const target of ['/paid/', '/PAID', '/paid;jsessionid=1', '//paid']) {
      expect((await rawRequest(running.url, 'GET', target, { payment: spending(clientId) })).status, target).toBe(200);
    }
    expect(upstream.seen.map((seen) => seen.url)).toEqual(['/paid/', '/PAID', '/paid;jsessionid=1', '//paid']);
    expect(await balance()).toBe(10_000);
  });

  it('CR-15.5 refuses an invalid upstreamMatching with ERR_GATEWAY_CONFIG, from the loader and from a configuration built in code', async () => {
    const codeOf = (upstreamMatching: unknown): string | undefined => {
      try {
        configFor('http://127.0.0.1:1', { upstreamMatching: upstreamMatching as 'exact' });
      } catch (error) {
        if (error instanceof Credit402ConfigError) return error.code;
        throw error;
      }
      return undefined;
    };
    for (const invalid of ['loose', 'Exact', 7, true, null, {}, ['case-insensitive', 'nope'], ['case-insensitive', 'case-insensitive'], [1]]) {
      expect(codeOf(invalid), JSON.stringify(invalid)).toBe('ERR_GATEWAY_CONFIG');
    }
    for (const valid of [undefined, 'unknown', 'exact', [], ['merged-slashes', 'percent-decoding', 'matrix-parameters', 'empty-named-segments']]) {
      expect(codeOf(valid), JSON.stringify(valid)).toBeUndefined();
    }
    expect(configFor('http://127.0.0.1:1').upstreamMatching).toBe('unknown');
    const config = { ...configFor('http://127.0.0.1:1'), upstreamMatching: ['case-folding'] as unknown as 'exact' };
    await expect(startGateway(config, { store: new MemoryStore() })).rejects.toMatchObject({ code: 'ERR_GATEWAY_CONFIG', message: expect.stringContaining('upstreamMatching') });
  });
});
