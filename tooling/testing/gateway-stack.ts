// Test helper: node:http echo upstreams and gateways in front of them (memory store, no Stripe call), closed after each test.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { loadGatewayConfig, startGateway, type GatewayConfig, type RunningGateway } from 'credit402/gateway';
import { MemoryStore } from 'credit402/stores';

/** The price of every gated route of the test gateways, in units. */
export const PRICE = 500;

/** The gated routes of the test gateways: `/slow` answers late, `/fails` answers 503. */
export const ROUTES = { 'GET /paid': { amount: PRICE }, 'POST /paid': { amount: PRICE }, 'GET /slow': { amount: PRICE }, 'GET /fails': { amount: PRICE } };

/** What the upstream saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running echo upstream. */
export interface EchoUpstream {
  url: string;
  /** Every request it received, in order. */
  seen: Seen[];
  server: Server;
}

/** Starts and closes upstreams and gateways; use inside a test file (registers an `afterEach`). */
export interface GatewayStack {
  /** An upstream that echoes what it saw; `/slow` answers after `slowMs`, `/fails` answers 503. */
  upstream(slowMs?: number): Promise<EchoUpstream>;
  /** The configuration of a gateway in front of `upstream`: {@link ROUTES}, a free port, an unreachable Stripe API. */
  configFor(upstream: string, more?: Partial<GatewayConfig>): GatewayConfig;
  /** A gateway of {@link configFor} on a fresh memory store. */
  gateway(upstream: string, more?: Partial<GatewayConfig>): Promise<{ running: RunningGateway; store: MemoryStore }>;
}

/** Registers an `afterEach` that closes what the stack started during the test, last started first. */
export function useGatewayStack(): GatewayStack {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const configFor = (upstream: string, more: Partial<GatewayConfig> = {}): GatewayConfig =>
    loadGatewayConfig({ env: {}, overrides: { upstream, port: 0, host: '127.0.0.1', stripeApi: 'http://127.0.0.1:9', routes: ROUTES, reconcileEveryMs: 0, ...more } });
  return {
    async upstream(slowMs = 0) {
      const upstream = await startEchoUpstream(slowMs);
      cleanups.push(() => new Promise<void>((resolve) => { upstream.server.closeAllConnections(); upstream.server.close(() => resolve()); }));
      return upstream;
    },
    configFor,
    async gateway(upstream, more = {}) {
      const store = new MemoryStore();
      const running = await startGateway(configFor(upstream, more), { store });
      cleanups.push(() => running.close());
      return { running, store };
    },
  };
}

async function startEchoUpstream(slowMs: number): Promise<EchoUpstream> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      const answer = () => res.writeHead(req.url === '/fails' ? 503 : 200, { 'content-type': 'application/json', 'x-upstream': 'yes' }).end(JSON.stringify({ ...entry, headers: undefined }));
      if (req.url?.startsWith('/slow')) setTimeout(answer, slowMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** Gives the client of id `digit` × 64 a balance of 10000 units in `store`; `balance()` reads it back. */
export async function fundedClient(store: MemoryStore, digit: string): Promise<{ clientId: string; balance: () => Promise<number | undefined> }> {
  const clientId = digit.repeat(64);
  await store.addBalance(clientId, 'usd', 10_000);
  return { clientId, balance: async () => (await store.getClient(clientId))?.balances.usd };
}
