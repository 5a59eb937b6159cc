// The gateway serves what it charges (CR-4.7, CR-15.1): targets and headers the proxy once refused after the deduction, free targets it answered 500, hop-by-hop headers both ways, the health and metrics endpoints.
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { fundedClient, PRICE, ROUTES, useGatewayStack } from 'credit402-tooling/testing/gateway-stack';
import { rawRequest } from 'credit402-tooling/testing/raw-request';

const { upstream: startUpstream, configFor, gateway } = useGatewayStack();

/** The test gateways' routes plus a named segment and a wildcard. */
const PATTERN_ROUTES = { ...ROUTES, 'GET /api/users/:id': { amount: PRICE }, 'GET /files/*': { amount: PRICE } };

/** The `payment` header spending from `clientId`'s balance. */
const spending = (clientId: string): string => Buffer.from(JSON.stringify({ clientId })).toString('base64');

/** What came back over one raw connection: the head (status line and headers) as text, the body, and whether the gateway closed the connection. */
interface RawExchange {
  status: number;
  head: string;
  body: string;
  closedByServer: boolean;
}

/** `received` without the interim (1xx) answers before the final one. */
function withoutInterim(received: string): string {
  let rest = received;
  while (/^HTTP\/1\.1 1\d\d /.test(rest)) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return '';
    rest = rest.slice(end + 4);
  }
  return rest;
}

/**
 * Writes `lines` (a request head, CRLF-joined, then an empty line) and `body` on one connection, and reads one answer.
 * `closedByServer` is whether the gateway ended the connection within `waitMs` after the answer's head.
 */
function rawExchange(baseUrl: string, lines: string[], body = '', waitMs = 500): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let settled = false;
    const finish = (closedByServer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const answer = withoutInterim(received);
      const end = answer.indexOf('\r\n\r\n');
      const head = end === -1 ? answer : answer.slice(0, end);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: end === -1 ? '' : answer.slice(end + 4), closedByServer });
    };
    let timer: NodeJS.Timeout = setTimeout(() => finish(false), 5_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      // Once the final answer's head is in, wait a little for the gateway to close the connection (or not).
      if (withoutInterim(received).includes('\r\n\r\n')) {
        clearTimeout(timer);
        timer = setTimeout(() => finish(false), waitMs);
      }
    });
    socket.on('end', () => finish(true));
    socket.on('error', reject);
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

describe('the gateway serves every request it charges (CR-4.7, CR-15.1)', () => {
  it.each<[why: string, target: string, forwarded?: string, routes?: typeof PATTERN_ROUTES]>([
    ['with a bare % in the query, query as received', '/paid?q=100%'],
    ['with a Latin-1 percent-encoding in the query, query as received', '/paid?city=S%E3o'],
    ['with a bare ? query, query as received', '/paid?'],
    ['whose path has a wildcard rest starting with .., with the path the gate matched', '/files/..hidden', '/files/..hidden', PATTERN_ROUTES],
    ['whose path has an encoded ../ inside one segment, with the path the gate matched', '/files/a%2F%2E%2E%2Fb', '/files/a%2F..%2Fb', PATTERN_ROUTES],
    ['whose path has a named segment ending with .., with the path the gate matched', '/api/users/x..', '/api/users/x..', PATTERN_ROUTES],
  ])('forwards a paid request %s, and keeps its price', async (_why, target, forwarded = target, routes) => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url, routes === undefined ? {} : { routes });
    const { clientId, balance } = await fundedClient(store, '1');
    const answer = await rawRequest(running.url, 'GET', target, { payment: spending(clientId) });
    expect(answer.status, answer.body).toBe(200);
    expect(upstream.seen.map((seen) => seen.url)).toEqual([forwarded]);
    expect(await balance()).toBe(10_000 - PRICE);
  });

  it.each([
    ['Keep-Alive with Connection: close', ['Keep-Alive: timeout=5', 'Connection: close']],
    ['Keep-Alive without Connection', ['Keep-Alive: timeout=5, max=100']],
    ['Upgrade without Connection: upgrade', ['Upgrade: h2c']],
    ['TE and Trailer', ['TE: trailers', 'Trailer: x-checksum']],
    ['Proxy-Connection', ['Proxy-Connection: keep-alive']],
  ])('serves a paid request with the hop-by-hop headers %s and forwards none of them', async (_why, headers) => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url);
    const { clientId, balance } = await fundedClient(store, '3');
    const answer = await rawExchange(running.url, ['GET /paid HTTP/1.1', 'Host: gateway.test', `payment: ${spending(clientId)}`, ...headers]);
    expect(answer.status, answer.head + answer.body).toBe(200);
    expect(answer.head).toMatch(/^payment-response: /im);
    const seen = upstream.seen[0]?.headers ?? {};
    for (const name of ['keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection']) expect(seen[name], name).toBeUndefined();
    expect(await balance()).toBe(10_000 - PRICE);
  });

  it('serves a paid POST sent with Expect: 100-continue, its body forwarded, and keeps its price', async () => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url);
    const { clientId, balance } = await fundedClient(store, '4');
    const lines = ['POST /paid HTTP/1.1', 'Host: gateway.test', `payment: ${spending(clientId)}`, 'Expect: 100-continue', 'Content-Type: text/plain', 'Content-Length: 5'];
    const answer = await rawExchange(running.url, lines, 'hello');
    expect(answer.status, answer.head + answer.body).toBe(200);
    expect(upstream.seen[0]?.body).toBe('hello');
    expect(upstream.seen[0]?.headers.expect).toBeUndefined();
    expect(await balance()).toBe(10_000 - PRICE);
  });

  it('answers a client that sent Connection: close with connection: close and closes, whatever the upstream keeps alive', async () => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url);
    const { clientId } = await fundedClient(store, '5');
    for (const lines of [['GET /free HTTP/1.1'], ['GET /paid HTTP/1.1', `payment: ${spending(clientId)}`]]) {
      const answer = await rawExchange(running.url, [...lines, 'Host: gateway.test', 'Connection: close']);
      expect(answer.status).toBe(200);
      expect(answer.head).toMatch(/^connection: close$/im);
      expect(answer.head).not.toMatch(/^keep-alive:/im);
      expect(answer.closedByServer).toBe(true);
    }
  });

  it('keeps the connection of a client that keeps it alive, without copying the upstream\'s own keep-alive header', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    const answer = await rawExchange(running.url, ['GET /free HTTP/1.1', 'Host: gateway.test'], '', 300);
    expect(answer.status).toBe(200);
    expect(answer.closedByServer).toBe(false);
  });
});

describe('the gateway forwards free requests it once answered 500 (CR-15.1)', () => {
  it('forwards under the path of an upstream URL that has one, paid and free', async () => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(`${upstream.url}/base/`);
    const { clientId, balance } = await fundedClient(store, '7');
    expect((await rawRequest(running.url, 'GET', '/free?a=1')).status).toBe(200);
    expect((await rawRequest(running.url, 'GET', '/p%61id', { payment: spending(clientId) })).status).toBe(200);
    expect(upstream.seen.map((seen) => seen.url)).toEqual(['/base/free?a=1', '/base/paid']);
    expect(await balance()).toBe(10_000 - PRICE);
  });

  it.each([
    ['an absolute-form target, in origin-form', 'GET', 'http://x/free?a=1', '/free?a=1'],
    ['an absolute-form target with //, in origin-form', 'GET', 'http://x//api/weather', '//api/weather'],
    ['a // target as received', 'GET', '//', '//'],
    ['a bare % in the query as received', 'GET', '/free?%', '/free?%'],
    ['characters URL parsers percent-encode, as received', 'GET', '/free/{a}"b"<c>`d`', '/free/{a}"b"<c>`d`'],
    ['a .. inside a segment, as received', 'GET', '/free/..x/a..', '/free/..x/a..'],
    ['the asterisk-form OPTIONS *', 'OPTIONS', '*', '*'],
  ])('%s', async (_why, method, target, forwarded) => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    const answer = await rawRequest(running.url, method, target);
    expect(answer.status, answer.body).toBe(200);
    expect(upstream.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual([`${method} ${forwarded}`]);
  });

  it.each(['/free%', '/free/%zz', '/free/%FF', '/api/users/%E3o', '/files/%'])('refuses %s, a malformed percent-encoding in the path, as ambiguous, charging nothing (CR-4.10)', async (target) => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url, { routes: PATTERN_ROUTES });
    const { clientId, balance } = await fundedClient(store, '6');
    for (const headers of [{}, { payment: spending(clientId) }] as Record<string, string>[]) {
      const answer = await rawRequest(running.url, 'GET', target, headers);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'ambiguous_request_target' });
    }
    expect(upstream.seen).toEqual([]);
    expect(await balance()).toBe(10_000);
  });
});

/** Upstreams answering every request with `answer`, closed after each test. */
const answering: Array<() => void> = [];
afterEach(() => {
  for (const close of answering.splice(0)) close();
});
async function answeringUpstream(answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  answering.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the gateway passes the upstream\'s answer on as it came (CR-15.1, CR-15.2)', () => {
  it('adds no content-type to an answer that has none, paid or free', async () => {
    const url = await answeringUpstream((res) => res.writeHead(200, { 'content-length': '5' }).end('plain'));
    const { running, store } = await gateway(url);
    const { clientId } = await fundedClient(store, '8');
    for (const [target, headers] of [['/free', {}], ['/paid', { payment: spending(clientId) }]] as Array<[string, Record<string, string>]>) {
      const answer = await rawRequest(running.url, 'GET', target, headers);
      expect(answer.status).toBe(200);
      expect(answer.body).toBe('plain');
      expect(answer.headers['content-type']).toBeUndefined();
    }
  });

  it('passes on a chunked answer, an empty one and one streamed over time, each body whole, with the gate\'s payment-response', async () => {
    const part = 'y'.repeat(100_000);
    const bodies: Array<[(res: ServerResponse) => void, string]> = [
      [(res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.write('chunked '); res.end('answer'); }, 'chunked answer'],
      [(res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(), ''],
      [(res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.write(part); setTimeout(() => res.end(part), 30); }, part + part],
    ];
    for (const [answer, expected] of bodies) {
      const url = await answeringUpstream(answer);
      const { running, store } = await gateway(url);
      const { clientId, balance } = await fundedClient(store, '9');
      const got = await rawRequest(running.url, 'GET', '/paid', { payment: spending(clientId) });
      expect(got.status).toBe(200);
      expect(got.body.length).toBe(expected.length);
      expect(got.body).toBe(expected);
      expect(got.headers['payment-response']).toBeTypeOf('string');
      expect(await balance()).toBe(10_000 - PRICE);
    }
  });

  it('answers HEAD with the upstream\'s content-length and no body', async () => {
    const url = await answeringUpstream((res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '42' }).end());
    const { running } = await gateway(url);
    const answer = await rawRequest(running.url, 'HEAD', '/free');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-length']).toBe('42');
    expect(answer.body).toBe('');
  });
});

describe('the gateway\'s own endpoints (CR-15.4)', () => {
  it('answers the health endpoint without naming the upstream', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    const response = await fetch(`${running.url}/healthz`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual({ status: 'ok' });
    expect(text).not.toContain(new URL(upstream.url).port);
  });

  it('guards the metrics endpoint with metricsToken: 401 without the bearer token or with another, the metrics with it', async () => {
    const upstream = await startUpstream();
    const token = 'metrics-token-0123456789abcdef';
    const { running } = await gateway(upstream.url, { metricsPath: '/metrics', metricsToken: token });
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${token}`, `Bearer ${token}x`]) {
      const response = await fetch(`${running.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await response.text()).not.toContain('credit402_');
    }
    const response = await fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('credit402_paid_requests_total');
    expect(upstream.seen).toEqual([]);
  });

  it('refuses an invalid metricsToken, or one without metricsPath, with ERR_GATEWAY_CONFIG', () => {
    const codeOf = (more: Parameters<typeof configFor>[1]): string | undefined => {
      try {
        configFor('http://127.0.0.1:1', more);
      } catch (error) {
        if (error instanceof Credit402ConfigError) return error.code;
        throw error;
      }
      return undefined;
    };
    expect(codeOf({ metricsPath: '/metrics', metricsToken: 'short' })).toBe('ERR_GATEWAY_CONFIG');
    expect(codeOf({ metricsPath: '/metrics', metricsToken: 'has a space in it, 0123456789' })).toBe('ERR_GATEWAY_CONFIG');
    expect(codeOf({ metricsToken: 'metrics-token-0123456789abcdef' })).toBe('ERR_GATEWAY_CONFIG');
    expect(codeOf({ metricsPath: '/metrics', metricsToken: 'metrics-token-0123456789abcdef' })).toBeUndefined();
    expect(configFor('http://127.0.0.1:1', { metricsPath: '/metrics', metricsToken: 'metrics-token-0123456789abcdef' }).metricsToken).toBe('metrics-token-0123456789abcdef');
  });
});
