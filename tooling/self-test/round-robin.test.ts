// The multi-instance self-test's balancer: requests in turn to each upstream, bytes and repeated headers unchanged, handled counts summed.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRoundRobin, type RoundRobin } from './round-robin.ts';

/** One upstream: echoes what it received, answers the handled route with its own counts, and can hang. */
function upstream(name: string, counts: Record<string, number>): Promise<{ server: Server; url: string; aborted: string[] }> {
  const aborted: string[] = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/_conformance/handled')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
      return;
    }
    if (req.url === '/hang') {
      res.on('close', () => aborted.push(name));
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(201, [['x-upstream', name], ['x-twice', 'a'], ['x-twice', 'b']].flat());
      res.end(JSON.stringify({ name, method: req.method, url: req.url, body, payment: req.headersDistinct.payment }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, aborted })));
}

/** POSTs `body` to `url` with two `payment` header lines (fetch would join them into one). */
function postTwoLines(url: string, body: string): Promise<{ status: number; twice: string[] | undefined; echoed: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: ['host', new URL(url).host, 'payment', 'one', 'payment', 'two', 'content-length', String(Buffer.byteLength(body))] }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, twice: res.headersDistinct['x-twice'], echoed: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the round-robin balancer of the multi-instance self-test', () => {
  const ups: Awaited<ReturnType<typeof upstream>>[] = [];
  let balancer: RoundRobin;

  beforeAll(async () => {
    ups.push(await upstream('a', { x: 1, y: 0 }), await upstream('b', { x: 0, y: 0 }), await upstream('c', { x: 0, y: 2 }));
    balancer = await startRoundRobin({ upstreams: ups.map((up) => up.url), summedPaths: ['/_conformance/handled'] });
  });
  afterAll(async () => {
    await balancer.close();
    for (const up of ups) await new Promise((resolve) => up.server.close(resolve));
  });

  it('sends each request to the next upstream, with its method, target, body and repeated header lines', async () => {
    const names: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { status, twice, echoed } = await postTwoLines(`${balancer.url}/echo?i=${i}`, `body ${i}`);
      expect(status).toBe(201);
      expect(twice).toEqual(['a', 'b']);
      expect(echoed).toMatchObject({ method: 'POST', url: `/echo?i=${i}`, body: `body ${i}`, payment: ['one', 'two'] });
      names.push(String(echoed.name));
    }
    expect(names).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(balancer.forwarded).toEqual([2, 2, 2]);
  });

  it('answers GET /_conformance/handled with the sum of every upstream\'s counts', async () => {
    const response = await fetch(`${balancer.url}/_conformance/handled?ids=x,y`);
    expect(await response.json()).toEqual({ x: 1, y: 2 });
  });

  it('aborts the upstream request when the client gives up', async () => {
    await expect(fetch(`${balancer.url}/hang`, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    await expect.poll(() => ups.flatMap((up) => up.aborted)).toHaveLength(1);
  });
});
