// The gateway's forwarder on its own, against node:http upstreams: targets and header lines as given, answers whole or streamed, interim answers, timeouts, failures, a client gone, the asterisk-form, closing.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamForwarder, type UpstreamAnswer, type UpstreamFailure, type UpstreamForwarder, type UpstreamRequest } from './upstream-forward.ts';

/** What one upstream saw of a request. */
interface Arrival {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
  /** Resolves once the request's connection closed. */
  closed: Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An upstream answering with `answer` once it read a request; records what it saw. */
async function upstream(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; arrivals: Arrival[]; server: Server }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const closed = once(req.socket, 'close').then(() => undefined);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString(), closed });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, server };
}

function forwarder(url: string, timeoutMs = 1_000): UpstreamForwarder {
  const created = createUpstreamForwarder(url, timeoutMs);
  cleanups.push(() => created.close());
  return created;
}

/** Sends `request` and resolves to what `done` was called with. */
function send(through: UpstreamForwarder, request: Partial<UpstreamRequest> = {}): Promise<{ failure?: UpstreamFailure; answer?: UpstreamAnswer }> {
  return new Promise((resolve) => {
    through.send({ method: 'GET', target: '/', headers: [], body: undefined, ...request }, (failure, answer) => resolve({ ...(failure ? { failure } : {}), ...(answer ? { answer } : {}) }));
  });
}

/** The body of an answer as text: a Buffer as it is, a stream read to its end. */
async function text(answer: UpstreamAnswer | undefined): Promise<string> {
  const body = answer?.body;
  if (body === undefined) throw new Error('no answer');
  if (Buffer.isBuffer(body)) return body.toString();
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('the gateway\'s forwarder (CR-15.1, CR-15.2, CR-15.3)', () => {
  it('sends the target as given under the upstream\'s path, each header line as given, and Host the upstream\'s', async () => {
    const up = await upstream((_req, res) => res.end('ok'));
    const through = forwarder(`${up.url}/base/`);
    const { answer } = await send(through, { target: '/free/{a}"b"?q=100%&x=%E3', headers: ['x-dup', 'one', 'x-dup', 'two', 'cookie', 'a=1; b=2'] });
    expect(await text(answer)).toBe('ok');
    const [seen] = up.arrivals;
    expect(seen?.url).toBe('/base/free/{a}"b"?q=100%&x=%E3');
    expect(seen?.rawHeaders).toEqual(expect.arrayContaining(['x-dup', 'one', 'x-dup', 'two', 'cookie', 'a=1; b=2']));
    expect(seen?.rawHeaders[seen.rawHeaders.findIndex((name) => name.toLowerCase() === 'host') + 1]).toBe(new URL(up.url).host);
  });

  it('hands a small answer over whole, with its status and header fields as received', async () => {
    const up = await upstream((_req, res) => res.writeHead(201, { 'content-type': 'text/plain', 'x-up': 'yes', 'set-cookie': ['a=1', 'b=2'] }).end('created'));
    const { answer } = await send(forwarder(up.url));
    expect(Buffer.isBuffer(answer?.body)).toBe(true);
    expect(answer?.status).toBe(201);
    expect(answer?.headers).toMatchObject({ 'content-type': 'text/plain', 'x-up': 'yes', 'set-cookie': ['a=1', 'b=2'], connection: 'keep-alive' });
    expect(await text(answer)).toBe('created');
  });

  it('streams an answer whose body comes later, to its end', async () => {
    const part = 'x'.repeat(64 * 1024);
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(part);
      setTimeout(() => res.end(part), 50);
    });
    const { answer } = await send(forwarder(up.url));
    expect(Buffer.isBuffer(answer?.body)).toBe(false);
    expect(await text(answer)).toBe(part + part);
  });

  it('skips an interim answer (103 Early Hints) and hands over the final one', async () => {
    const up = await upstream((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('final'), 20);
    });
    const { answer } = await send(forwarder(up.url));
    expect(answer?.status).toBe(200);
    expect(await text(answer)).toBe('final');
  });

  it('streams a request body, chunked when it has no content-length', async () => {
    const up = await upstream((_req, res) => res.end());
    await send(forwarder(up.url), { method: 'POST', body: Readable.from(['part one, ', 'part two']) });
    expect(up.arrivals[0]?.body).toBe('part one, part two');
    expect(up.arrivals[0]?.rawHeaders.map((field) => field.toLowerCase())).toEqual(expect.arrayContaining(['transfer-encoding', 'chunked']));
  });

  it('sends the asterisk-form as received (OPTIONS *), through node:http', async () => {
    const up = await upstream((_req, res) => res.end('options'));
    const { answer } = await send(forwarder(`${up.url}/base`), { method: 'OPTIONS', target: '*' });
    expect(await text(answer)).toBe('options');
    expect(up.arrivals.map((seen) => `${seen.method} ${seen.url}`)).toEqual(['OPTIONS *']);
  });

  it('fails a request whose head does not come within the timeout as timed out (504), and drops its connection', async () => {
    const up = await upstream(() => {});
    const { failure } = await send(forwarder(up.url, 100));
    expect(failure?.timedOut).toBe(true);
    await up.arrivals[0]?.closed;
  });

  it('fails a request the upstream refuses, resets or answers with bytes that are not HTTP, not as timed out (502)', async () => {
    const closed = await upstream(() => {});
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    expect((await send(forwarder(closed.url))).failure?.timedOut).toBe(false);
    const reset = await upstream((req) => req.socket.resetAndDestroy());
    expect((await send(forwarder(reset.url))).failure?.timedOut).toBe(false);
    const garbage = await upstream((req) => req.socket.end('this is not an HTTP answer\r\n\r\n'));
    expect((await send(forwarder(garbage.url))).failure?.timedOut).toBe(false);
  });

  it('fails a request with a header field it will not send before the upstream sees anything', async () => {
    const up = await upstream((_req, res) => res.end());
    const { failure } = await send(forwarder(up.url), { headers: ['x-bad', 'a\nb'] });
    expect(failure?.timedOut).toBe(false);
    expect(up.arrivals).toEqual([]);
  });

  it('breaks off the stream of an answer cut after its head, or whose body stalls past the timeout (then as timed out)', async () => {
    const cut = await upstream((req, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.write('half', () => setTimeout(() => req.socket.destroy(), 20));
    });
    await expect(text((await send(forwarder(cut.url))).answer)).rejects.toMatchObject({ timedOut: false });
    const stalled = await upstream((_req, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.write('half');
    });
    await expect(text((await send(forwarder(stalled.url, 100))).answer)).rejects.toMatchObject({ timedOut: true });
  });

  it('drops the upstream request of a client gone before the answer, and the answer of one gone during it', async () => {
    const slow = await upstream((_req, res) => setTimeout(() => res.end('late'), 2_000));
    const through = forwarder(slow.url);
    const call = through.send({ method: 'GET', target: '/', headers: [], body: undefined }, () => {});
    await expect.poll(() => slow.arrivals.length).toBe(1);
    call.destroy();
    await slow.arrivals[0]?.closed;
    const streaming = await upstream((_req, res) => {
      res.writeHead(200);
      res.write('first');
    });
    const { answer } = await send(forwarder(streaming.url));
    if (answer === undefined || Buffer.isBuffer(answer.body)) throw new Error('expected a stream');
    answer.body.destroy();
    await streaming.arrivals[0]?.closed;
  });

  it('closes once the requests under way are answered', async () => {
    const up = await upstream((_req, res) => setTimeout(() => res.end('done'), 100));
    const through = createUpstreamForwarder(up.url, 1_000);
    const sent = send(through);
    await expect.poll(() => up.arrivals.length).toBe(1);
    await through.close();
    expect(await text((await sent).answer)).toBe('done');
  });
});
