// The routing corpus through the gateway (CR-4.7, CR-4.9, CR-4.10, CR-15.1, CR-15.5): every variant unpaid, then spending from a funded balance, in front of Express 5 (strict, and with its default routing) and Fastify upstreams; no bypass, no 5xx, no price without its handler's answer.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express5 from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { REPO_ROOT } from 'credit402-tooling/testing/kit';
import { loadGatewayConfig } from './gateway-config.ts';
import { startGateway } from './start-gateway.ts';

/** The conformance profile's routes (harness/conformance-profile.json) but those of its failing handlers, gated by the gateway and served by the upstreams. */
const ROUTES = {
  'GET /api/weather': { amount: 500, description: 'Weather lookup' },
  'POST /api/translate': { amount: 2500, currency: 'eur', minTopUp: 100000, description: 'Translation' },
  'GET /api/nodesc': { amount: 1 },
  'GET /api/users/me': { amount: 100, description: 'Own profile' },
  'GET /api/users/:id': { amount: 300, description: 'User lookup' },
  'GET /api/files/:name': { amount: 250 },
  'GET /api/files/*': { amount: 200 },
} as const;
type RouteKey = keyof typeof ROUTES;
const CLIENT = 'a'.repeat(64);
const SPEND = Buffer.from(JSON.stringify({ clientId: CLIENT })).toString('base64');
/** The header carrying a variant's id to the upstream, which records the handler it ran under that id. */
const ID_HEADER = 'x-corpus-id';

/** One variant: a method, extra header lines and a request target, with a body for POST. */
interface Variant {
  method: string;
  headers: string[];
  target: string;
}

/** The routing corpus of features/04-routing.feature (its Examples table, `\\` read as one backslash). */
function featureCorpus(): Variant[] {
  const feature = readFileSync(`${REPO_ROOT}features/04-routing.feature`, 'utf8');
  const table = feature.slice(feature.indexOf('Scenario Outline: routing corpus'));
  const variants: Variant[] = [];
  for (const line of table.split('\n')) {
    const cells = line.trim().startsWith('|') ? line.split('|').slice(1, -1).map((cell) => cell.trim()) : [];
    if (cells.length !== 5 || cells[0] === 'variants') continue;
    const [, method = 'GET', header = '', , targets = ''] = cells;
    const headers = [...header.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? '');
    for (const target of targets.split(/\s+/).filter(Boolean)) variants.push({ method, headers, target: target.replaceAll('\\\\', '\\') });
  }
  return variants;
}

/** Variants of issue 25's review: queries and parameters the proxy refused after the deduction, hop-by-hop headers, free targets it answered 500. */
const REVIEW: Variant[] = [
  ...['/api/weather?q=100%', '/api/weather?city=S%E3o', '/api/weather?', '/api/files/..hidden', '/api/files/a%2F%2E%2E%2Fb', '/api/files/a/..b/c..', '/api/users/..x', '/api/users/x..',
    '/api/users/%FF', '/api/users/%', '/api/users/%zz', '/api/files/%FF', '/api/files/a/%C3', '/api/users/%C3%A9', '/api/users/{x}', '/api/users/"x"', '/api/files/<a>',
    'http://x//api/weather', 'http://x', '//', '/%', '/free?%', '/free%', '/free/%E3', '/free/..x', '/free/{a}'].map((target) => ({ method: 'GET', headers: [], target })),
  ...[['Keep-Alive: timeout=5', 'Connection: close'], ['Keep-Alive: timeout=5, max=100'], ['Expect: 100-continue'], ['Upgrade: h2c'], ['TE: trailers'], ['Proxy-Connection: keep-alive'], ['Connection: close'], ['Connection: keep-alive, x-drop-me', 'X-Drop-Me: 1']]
    .flatMap((headers) => [{ method: 'GET', headers, target: '/api/weather' }, { method: 'POST', headers, target: '/api/translate' }, { method: 'GET', headers, target: '/free' }]),
  { method: 'OPTIONS', headers: [], target: '*' },
];

/** An answer read off a raw connection: status, lowercase headers and the body text. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request exactly as written (request line, header lines, a 2-byte body for POST) on its own connection,
 * and reads its answer (interim 1xx answers skipped; the body by content-length, chunked, or to the close).
 */
function sendRaw(url: string, method: string, target: string, headerLines: string[]): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const body = method === 'POST' ? '{}' : '';
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: gateway.test', ...headerLines, ...(body ? ['Content-Type: application/json', `Content-Length: ${body.length}`] : [])];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let done = false;
    const timer = setTimeout(() => finish(), 5_000);
    const parse = (): RawAnswer | undefined => {
      let text = data.toString('latin1');
      while (/^HTTP\/1\.1 1\d\d /.test(text) && text.includes('\r\n\r\n')) text = text.slice(text.indexOf('\r\n\r\n') + 4);
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return undefined;
      const [statusLine = '', ...fields] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(fields.map((field) => [field.slice(0, field.indexOf(':')).toLowerCase(), field.slice(field.indexOf(':') + 1).trim()]));
      const status = Number(statusLine.split(' ')[1]);
      const rest = text.slice(end + 4);
      if (method === 'HEAD' || status === 204 || status === 304) return { status, headers, body: '' };
      if (headers['content-length'] !== undefined) return rest.length >= Number(headers['content-length']) ? { status, headers, body: rest.slice(0, Number(headers['content-length'])) } : undefined;
      if (headers['transfer-encoding'] === 'chunked') {
        if (!rest.includes('0\r\n\r\n')) return undefined;
        let chunks = '';
        for (let at = 0; ;) {
          const size = Number.parseInt(rest.slice(at, rest.indexOf('\r\n', at)), 16);
          if (!(size > 0)) break;
          at = rest.indexOf('\r\n', at) + 2;
          chunks += rest.slice(at, at + size);
          at += size + 2;
        }
        return { status, headers, body: chunks };
      }
      return undefined;
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const answer = parse();
      if (answer !== undefined) {
        resolve(answer);
        return;
      }
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), headers: {}, body: end === -1 ? text : text.slice(end + 4) });
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (parse() !== undefined) finish();
    });
    socket.on('end', finish);
    socket.on('error', (error) => (done ? undefined : reject(error)));
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** A running upstream that records, per variant id, the route key of each handler it ran. */
interface Upstream {
  url: string;
  ran: Map<string, RouteKey | 'GET /free' | 'POST /api/weather'>;
  close(): Promise<void>;
}

type HandlerKey = RouteKey | 'GET /free' | 'POST /api/weather';
const FREE: HandlerKey[] = ['GET /free', 'POST /api/weather'];

/**
 * An Express 5 upstream with case-sensitive, strict routing (CR-15.1: the operator's upstream must not read more into a
 * target than the gate), or with `loose` Express's default routing (case-insensitive, a trailing slash optional), whose
 * near-misses of gated routes the gateway answers itself (CR-15.5).
 */
async function expressUpstream(loose = false): Promise<Upstream> {
  const ran = new Map<string, HandlerKey>();
  const app = express5();
  if (!loose) app.set('case sensitive routing', true).set('strict routing', true);
  const paths: Record<HandlerKey, string> = {
    'GET /api/weather': '/api/weather', 'POST /api/translate': '/api/translate', 'GET /api/nodesc': '/api/nodesc', 'GET /api/users/me': '/api/users/me',
    'GET /api/users/:id': '/api/users/:id', 'GET /api/files/:name': '/api/files/:name', 'GET /api/files/*': '/api/files/{*rest}', 'GET /free': '/free', 'POST /api/weather': '/api/weather',
  };
  for (const [key, path] of Object.entries(paths) as [HandlerKey, string][]) {
    const handler = (req: IncomingMessage, res: { json(body: unknown): void }): void => {
      ran.set(String(req.headers[ID_HEADER]), key);
      res.json({ route: key });
    };
    if (key.startsWith('GET ')) app.get(path, handler);
    else app.post(path, handler);
  }
  return listening(createServer(app), ran);
}

/**
 * A Fastify upstream (find-my-way: static over parametric over wildcard, as CR-4.13). Its named segments carry
 * `(^.+$)`: find-my-way would otherwise match an empty segment (`/api/users/` reaching `/api/users/:id`, which the gate
 * reads as free, CR-4.12), which is the operator's upstream reading more into a target than the gate (CR-15.1).
 */
async function fastifyUpstream(): Promise<Upstream> {
  const ran = new Map<string, HandlerKey>();
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
  });
  for (const key of [...Object.keys(ROUTES), ...FREE] as HandlerKey[]) {
    const [method = 'GET', path = '/'] = key.split(' ');
    app.route({ method: method as 'GET' | 'POST', url: path.replace(/:(\w+)/g, ':$1(^.+$)'), handler: async (request) => {
      ran.set(String(request.headers[ID_HEADER]), key);
      return { route: key };
    } });
  }
  await app.ready();
  return listening(app.server, ran);
}

async function listening(server: Server, ran: Map<string, HandlerKey>): Promise<Upstream> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, ran, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The findings of one run: each variant that ran a gated handler unpaid, answered 5xx, or took a price without its handler's answer. */
interface Findings {
  variants: number;
  bypasses: string[];
  serverErrors: string[];
  chargedWithoutService: string[];
}

async function runCorpus(upstream: Upstream, variants: readonly Variant[]): Promise<Findings> {
  const store = new MemoryStore();
  await store.addBalance(CLIENT, 'usd', 1_000_000_000);
  await store.addBalance(CLIENT, 'eur', 1_000_000_000);
  const config = loadGatewayConfig({ env: {}, overrides: { upstream: upstream.url, port: 0, host: '127.0.0.1', stripeApi: 'http://127.0.0.1:9', routes: ROUTES, reconcileEveryMs: 0 } });
  const running = await startGateway(config, { store });
  cleanups.push(() => running.close());
  const balances = async (): Promise<{ usd: number; eur: number }> => {
    const record = await store.getClient(CLIENT);
    return { usd: record?.balances.usd ?? 0, eur: record?.balances.eur ?? 0 };
  };
  const findings: Findings = { variants: variants.length, bypasses: [], serverErrors: [], chargedWithoutService: [] };
  let n = 0;
  for (const { method, headers, target } of variants) {
    const name = `${method} ${target}${headers.length > 0 ? ` [${headers.join('; ')}]` : ''}`;
    const unpaidId = `u${++n}`;
    const unpaid = await sendRaw(running.url, method, target, [...headers, `${ID_HEADER}: ${unpaidId}`]);
    const before = await balances();
    const paidId = `p${n}`;
    const paid = await sendRaw(running.url, method, target, [...headers, `${ID_HEADER}: ${paidId}`, `payment: ${SPEND}`]);
    // A refund (CR-15.3) is settled after the answer: let it land before reading the balance.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = await balances();
    const deducted = { usd: before.usd - after.usd, eur: before.eur - after.eur };
    const unpaidHandler = upstream.ran.get(unpaidId);
    const paidHandler = upstream.ran.get(paidId);
    if (unpaidHandler !== undefined && unpaidHandler in ROUTES) findings.bypasses.push(`${name}: unpaid, the handler of ${unpaidHandler} ran (${unpaid.status})`);
    if (paidHandler !== undefined && paidHandler in ROUTES && paid.headers['payment-response'] === undefined) findings.bypasses.push(`${name}: the handler of ${paidHandler} ran without payment-response (${paid.status})`);
    for (const [leg, answer] of [['unpaid', unpaid], ['paid', paid]] as const) {
      if (answer.status >= 500 || answer.status === 0) findings.serverErrors.push(`${name}: ${leg} answered ${answer.status} ${answer.body.slice(0, 120)}`);
    }
    const served = paidHandler !== undefined && paidHandler in ROUTES && paid.status >= 200 && paid.status < 300 && paid.headers['payment-response'] !== undefined;
    const route = served ? ROUTES[paidHandler as RouteKey] : undefined;
    const currency = route && 'currency' in route ? route.currency : 'usd';
    const expected = { usd: 0, eur: 0, ...(route ? { [currency]: route.amount } : {}) };
    if (deducted.usd !== expected.usd || deducted.eur !== expected.eur) {
      findings.chargedWithoutService.push(`${name}: deducted ${JSON.stringify(deducted)}, expected ${JSON.stringify(expected)}; answered ${paid.status} by ${paidHandler ?? 'no handler'} ${paid.body.slice(0, 120)}`);
    }
  }
  return findings;
}

describe('the routing corpus through the gateway (CR-4.9, CR-4.10, CR-15.1)', () => {
  const variants = [...featureCorpus(), ...REVIEW];

  it('reads the corpus of features/04-routing.feature', () => {
    expect(featureCorpus().length).toBeGreaterThanOrEqual(190);
  });

  it.each([['Express 5', () => expressUpstream()], ['Fastify', fastifyUpstream]] as const)(
    'in front of a %s upstream: no gated handler runs unpaid, no 5xx, no price taken without its handler\'s answer (CR-4.7)',
    async (name, start) => {
      const upstream = await start();
      cleanups.push(() => upstream.close());
      const findings = await runCorpus(upstream, variants);
      console.log(`gateway corpus, ${name} upstream: ${findings.variants} variants × (unpaid, paid): ${findings.bypasses.length} bypasses, ${findings.serverErrors.length} 5xx, ${findings.chargedWithoutService.length} charged without service`);
      expect(findings.bypasses).toEqual([]);
      expect(findings.serverErrors).toEqual([]);
      expect(findings.chargedWithoutService).toEqual([]);
    },
    120_000,
  );

  it('CR-15.5 in front of an Express 5 upstream with its default routing: no near-miss reaches a gated handler unpaid, no 5xx', async () => {
    const upstream = await expressUpstream(true);
    cleanups.push(() => upstream.close());
    const findings = await runCorpus(upstream, variants);
    console.log(`gateway corpus, Express 5 upstream with its default routing: ${findings.variants} variants × (unpaid, paid): ${findings.bypasses.length} bypasses, ${findings.serverErrors.length} 5xx, ${findings.chargedWithoutService.length} charged for another handler`);
    expect(findings.bypasses).toEqual([]);
    expect(findings.serverErrors).toEqual([]);
    // A target the gate serves as one route (CR-4.12) that such a router reads as another is no near-miss, and refusing it
    // would refuse a gated request: `/api/files/a/` is `GET /api/files/*` (200) for the gate, `GET /api/files/:name` (250)
    // for Express without strict routing. Only strict routing upstream settles it (docs/gateway.md).
    expect(findings.chargedWithoutService.map((finding) => finding.slice(0, finding.indexOf(':')))).toEqual(['GET /api/files/a/']);
  }, 120_000);
});
