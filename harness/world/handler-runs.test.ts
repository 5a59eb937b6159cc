// checkHandlerRuns and the request id header against a tiny local target whose handled route answers what each test sets.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.ts';
import { checkHandlerRuns, expectedRuns, runsOf } from './handler-runs.ts';
import { REQUEST_ID_HEADER, TargetClient } from './http-client.ts';

/** What the tiny target does: its answers by path, the handled route's answer, and what it received. */
const target = {
  handled: (ids: string[]): { status: number; body: string } => ({ status: 200, body: JSON.stringify(Object.fromEntries(ids.map((id) => [id, runs.get(id) ?? 0]))) }),
  queries: [] as string[],
  requests: [] as IncomingMessage[],
  /** The client port of each request's connection. */
  ports: [] as Array<number | undefined>,
};
const runs = new Map<string, number>();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === '/_conformance/handled') {
      target.queries.push(req.url ?? '');
      const ids = new URL(req.url ?? '/', 'http://x').searchParams.get('ids')?.split(',') ?? [];
      const { status, body } = target.handled(ids);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      return;
    }
    target.requests.push(req);
    target.ports.push(req.socket.remotePort);
    if (path === '/slow') return; // never answers
    if (path === '/paid') res.writeHead(200, { 'payment-response': Buffer.from('{"success":true}').toString('base64') }).end('{"route":"GET /paid"}');
    else if (path === '/free') res.writeHead(200).end('{"route":"GET /free"}');
    else if (path === '/other') res.writeHead(200).end('hello');
    else if (path === '/api/fails') res.writeHead(500).end('{"route":"GET /api/fails"}');
    else if (path === '/api/throws') res.writeHead(500).end('{"error":"Internal Server Error"}');
    else if (path === '/api/down') res.writeHead(503).end('{"success":false,"creditsRemaining":0,"clientId":"","error":"down","errorCode":"service_unavailable"}');
    else res.writeHead(402).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  runs.clear();
  target.queries = [];
  target.requests = [];
  target.ports = [];
  target.handled = (ids) => ({ status: 200, body: JSON.stringify(Object.fromEntries(ids.map((id) => [id, runs.get(id) ?? 0]))) });
});

/** Sends `GET path` through the kit's client; `ran` is how many runs the target then reports for it. */
async function exchange(client: TargetClient, path: string, ran: number, timeoutMs = 2_000): Promise<Exchange> {
  const sent = await client.send({ method: 'GET', target: path }, { timeoutMs });
  if (sent.requestId) runs.set(sent.requestId, ran);
  return sent;
}

describe('the request id', () => {
  it('is a new random hex value on every request, sent as conformance-request-id and kept on the exchange', async () => {
    const client = new TargetClient(url, 2_000);
    const [a, b] = [await client.send({ method: 'GET', target: '/free', headers: { payment: 'x' } }), await client.send({ method: 'GET', target: '/free' })];
    expect(a.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(b.requestId).not.toBe(a.requestId);
    expect(target.requests.map((req) => req.headers[REQUEST_ID_HEADER])).toEqual([a.requestId, b.requestId]);
    expect(a.request.headers).toEqual({ payment: 'x' });
  });

  it('is left out when the caller opts out, and the caller\'s own value is sent once and kept', async () => {
    const client = new TargetClient(url, 2_000);
    const none = await client.send({ method: 'GET', target: '/free' }, { requestId: false });
    const own = await client.send({ method: 'GET', target: '/free', headers: { 'Conformance-Request-Id': 'mine' } });
    expect(none.requestId).toBeUndefined();
    expect(own.requestId).toBe('mine');
    expect(target.requests.map((req) => req.headers[REQUEST_ID_HEADER])).toEqual([undefined, 'mine']);
  });
});

describe('sendTogether', () => {
  it('sends every request on a connection of its own, at once, and keeps each exchange in the given order', async () => {
    const client = new TargetClient(url, 2_000);
    const sent = await client.sendTogether(['/free', '/paid', '/api/weather'].map((target) => ({ method: 'GET', target })));
    expect(sent.map((one) => one.answer?.status)).toEqual([200, 200, 402]);
    expect(sent.map((one) => one.path)).toEqual(['/free', '/paid', '/api/weather']);
    expect(new Set(target.ports).size).toBe(3);
    expect(target.requests.map((req) => req.headers[REQUEST_ID_HEADER])).toEqual(sent.map((one) => one.requestId));
    expect(client.exchanges).toEqual(sent);
    const refused = await new TargetClient('http://127.0.0.1:1', 2_000).sendTogether([{ method: 'GET', target: '/free' }]);
    expect(refused[0]?.error).toMatch(/ECONNREFUSED/);
  });
});

describe('checkHandlerRuns', () => {
  it('finds nothing when every served answer ran its handler once and no other answer ran it', async () => {
    const client = new TargetClient(url, 2_000);
    const exchanges = [await exchange(client, '/paid', 1), await exchange(client, '/free', 1), await exchange(client, '/api/weather', 0)];
    expect(await checkHandlerRuns(url, exchanges)).toEqual({ checked: true, findings: [] });
    expect(target.queries).toHaveLength(1);
  });

  it('CR-4.6: reports a handler that ran for a 402, and a served answer whose handler ran 0 or 2 times', async () => {
    const client = new TargetClient(url, 2_000);
    const exchanges = [await exchange(client, '/api/weather', 1), await exchange(client, '/paid', 0), await exchange(client, '/free', 2)];
    const verdict = await checkHandlerRuns(url, exchanges);
    expect(verdict).toEqual({
      checked: true,
      findings: [
        'GET /api/weather → 402: the handler ran 1 time although the request was not served: it runs only for a served request',
        'GET /paid → 200: the handler ran 0 times although the request was served: it runs exactly once',
        'GET /free → 200: the handler ran 2 times although the request was served: it runs exactly once',
      ],
    });
  });

  it('expects 0 runs for a request that got no answer, and skips a timed-out one and a 2xx that names no route', async () => {
    const client = new TargetClient(url, 2_000);
    const refused = await new TargetClient('http://127.0.0.1:1', 2_000).send({ method: 'GET', target: '/api/weather' });
    runs.set(refused.requestId ?? '', 1);
    const slow = await exchange(client, '/slow', 1, 300);
    const other = await exchange(client, '/other', 0);
    expect([expectedRuns(refused), expectedRuns(slow), expectedRuns(other)]).toEqual([0, undefined, undefined]);
    const verdict = await checkHandlerRuns(url, [refused, slow, other]);
    expect(verdict.checked && verdict.findings).toEqual([expect.stringMatching(/^GET \/api\/weather → no answer \(.*ECONNREFUSED.*\): the handler ran 1 time/)]);
    expect(target.queries).toEqual([`/_conformance/handled?ids=${refused.requestId}`]);
  });

  it("leaves a 5xx of a failing handler's route to its scenario, but not the target's own 503 service_unavailable", async () => {
    const client = new TargetClient(url, 2_000);
    const failing = new Set(['GET /api/fails', 'GET /api/throws', 'GET /api/down']);
    const [fails, throws, down] = [await exchange(client, '/api/fails', 1), await exchange(client, '/api/throws', 1), await exchange(client, '/api/down', 1)];
    expect([fails, throws, down].map((sent) => expectedRuns(sent, failing))).toEqual([undefined, undefined, 0]);
    expect(expectedRuns(fails)).toBe(0);
    const verdict = await checkHandlerRuns(url, [fails, throws, down], undefined, failing);
    expect(verdict.checked && verdict.findings).toEqual([expect.stringMatching(/^GET \/api\/down → 503: the handler ran 1 time although the request was not served/)]);
    expect(await runsOf(url, fails.requestId ?? '')).toBe(1);
    expect(await runsOf(url, 'unknown')).toBe(0);
  });

  it('skips exchanges without a request id or sharing one, and asks nothing when none is left', async () => {
    const client = new TargetClient(url, 2_000);
    const none = await client.send({ method: 'GET', target: '/api/weather' }, { requestId: false });
    const shared = [1, 2].map(() => client.send({ method: 'GET', target: '/api/weather', headers: { [REQUEST_ID_HEADER]: 'same' } }));
    runs.set('same', 2);
    expect(await checkHandlerRuns(url, [none, ...(await Promise.all(shared))])).toEqual({ checked: true, findings: [] });
    expect(target.queries).toEqual([]);
  });

  it('asks for 100 ids at a time', async () => {
    const client = new TargetClient(url, 2_000);
    const exchanges: Exchange[] = [];
    for (let i = 0; i < 250; i++) exchanges.push(await exchange(client, '/api/weather', 0));
    runs.set(exchanges[249]?.requestId ?? '', 1);
    const verdict = await checkHandlerRuns(url, exchanges);
    expect(target.queries.map((query) => query.split(',').length)).toEqual([100, 100, 50]);
    expect(verdict.checked && verdict.findings).toHaveLength(1);
  });

  it('is not checked when the target has no handled route: 404, or an answer that is no JSON object', async () => {
    const exchanges = [await exchange(new TargetClient(url, 2_000), '/api/weather', 0)];
    target.handled = () => ({ status: 404, body: 'Not Found' });
    expect(await checkHandlerRuns(url, exchanges)).toEqual({ checked: false, reason: 'the target has no handled route: GET /_conformance/handled answered 404' });
    target.handled = () => ({ status: 200, body: '<html>' });
    expect(await checkHandlerRuns(url, exchanges)).toMatchObject({ checked: false, reason: expect.stringContaining('without a JSON object') });
  });

  it('reports a handled route that answers another status, or leaves an id out', async () => {
    const exchanges = [await exchange(new TargetClient(url, 2_000), '/api/weather', 0)];
    target.handled = () => ({ status: 402, body: '{"accepts":[]}' });
    expect(await checkHandlerRuns(url, exchanges)).toEqual({ checked: true, findings: ['GET /_conformance/handled answered 402 instead of 200 with the handler-run counts: {"accepts":[]}'] });
    target.handled = () => ({ status: 200, body: '{}' });
    expect(await checkHandlerRuns(url, exchanges)).toEqual({
      checked: true,
      findings: [`GET /api/weather → 402: the handled route gave no run count for its request id ${exchanges[0]?.requestId} (got nothing)`],
    });
  });
});
