// The payment rate limit behind a proxy, over real sockets: with trustProxy each client behind it has its own bucket; without, they share the proxy's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { loadServerConfig, type Framework, type ServerConfig } from '../compose/engine-config.ts';
import type { NewPaymentRateLimit } from '../gate/index.ts';
import { useGatewayStack } from 'credit402-tooling/testing/gateway-stack';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { startReferenceServer } from './start-server.ts';

/** Two failed new payments per address, then 429. */
const LIMIT: NewPaymentRateLimit = { perAddress: { max: 2, windowMs: 60_000 }, counts: 'failures' };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.close();
});

let unknownMethods = 0;
/** A payment method the emulator does not know: answered payment_failed, a failure on the payer's side. */
const unknown = () => ({ paymentMethodId: `pm_unknown${++unknownMethods}x${Date.now()}` });

/**
 * What a proxy on this machine sends for the client at `client`: the X-Forwarded-For it received (which the client may
 * have written), then the address it saw.
 */
const viaProxy = (client: string, written?: string) => ({ 'x-forwarded-for': written === undefined ? client : `${written}, ${client}` });

/** Pays `route` on `url` from `client` behind the proxy with an unknown payment method; resolves the status. */
async function failFrom(url: string, route: string, client: string, written?: string): Promise<number> {
  return (await paidFetch(url, route, unknown(), viaProxy(client, written))).status;
}

/**
 * The issue-34 scenario behind a proxy with trustProxy: one client fails until refused, and another client behind the
 * same proxy pays and fails on its own count. A client that writes X-Forwarded-For itself cannot leave its bucket.
 */
async function expectPerClientBuckets(url: string, route: string): Promise<void> {
  expect(await failFrom(url, route, '198.51.100.1')).toBe(402);
  expect(await failFrom(url, route, '198.51.100.1')).toBe(402);
  expect(await failFrom(url, route, '198.51.100.1')).toBe(429);
  // The proxy appends the address it saw: the entries the client wrote before it are not believed.
  expect(await failFrom(url, route, '198.51.100.1', '203.0.113.77')).toBe(429);
  const card = await createCardPaymentMethod(emulator.url);
  const paid = await paidFetch(url, route, { paymentMethodId: card }, viaProxy('198.51.100.2'));
  expect(paid.status).toBe(200);
  expect(await failFrom(url, route, '198.51.100.2')).toBe(402);
}

/** Without trustProxy every client behind the proxy has the proxy's address: one client's failures refuse the next one's payment. */
async function expectOneSharedBucket(url: string, route: string): Promise<void> {
  expect(await failFrom(url, route, '198.51.100.1')).toBe(402);
  expect(await failFrom(url, route, '198.51.100.1')).toBe(402);
  const card = await createCardPaymentMethod(emulator.url);
  const refused = await paidFetch(url, route, { paymentMethodId: card }, viaProxy('198.51.100.2'));
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ errorCode: 'rate_limited' });
}

/** Runs `check` against a reference server on `framework` with `more`, then closes it. */
async function withServer(framework: Framework, more: Partial<ServerConfig>, check: (url: string) => Promise<void>): Promise<void> {
  const config = loadServerConfig({ overrides: { framework, port: 0, store: { kind: 'memory' }, stripeApi: emulator.url, newPaymentRateLimit: LIMIT, ...more } });
  const server = await startReferenceServer(config);
  try {
    await check(server.url);
  } finally {
    await server.close();
  }
}

const FRAMEWORKS: Framework[] = ['fastify', 'express', 'hono', 'http'];

describe('credit402 serve behind a proxy', () => {
  it.each(FRAMEWORKS)('%s with trustProxy "loopback": each client behind the proxy has its own payment rate limit (was: the proxy\'s)', async (framework) => {
    await withServer(framework, { trustProxy: 'loopback' }, (url) => expectPerClientBuckets(url, 'GET /api/weather'));
  });

  it.each(FRAMEWORKS)('%s with trustProxy 1 (one hop, the proxy): the same, through X-Forwarded-For', async (framework) => {
    await withServer(framework, { trustProxy: 1 }, (url) => expectPerClientBuckets(url, 'GET /api/weather'));
  });

  it.each(FRAMEWORKS)('%s without trustProxy: the clients share the proxy\'s address, as documented', async (framework) => {
    await withServer(framework, {}, (url) => expectOneSharedBucket(url, 'GET /api/weather'));
  });

  it('takes trustProxy from --trust-proxy and CREDIT402_TRUST_PROXY, and refuses a value that is none of its forms (ERR_TRUST_PROXY)', () => {
    expect(loadServerConfig({ env: { CREDIT402_TRUST_PROXY: '2' } }).trustProxy).toBe(2);
    expect(loadServerConfig({ env: { CREDIT402_TRUST_PROXY: 'true' } }).trustProxy).toBe(true);
    expect(loadServerConfig({ env: { CREDIT402_TRUST_PROXY: '10.0.0.0/8, loopback' } }).trustProxy).toBe('10.0.0.0/8, loopback');
    for (const trustProxy of ['10.0.0.0/33', 'not-an-address', '10.0.0.1,,10.0.0.2', -1, 1.5, { proxy: true }, [1]]) {
      expect(() => loadServerConfig({ overrides: { trustProxy: trustProxy as ServerConfig['trustProxy'] } }), JSON.stringify(trustProxy)).toThrow(/ERR_TRUST_PROXY/);
    }
  });
});

describe('credit402 gateway behind a proxy', () => {
  const { upstream: startUpstream, gateway } = useGatewayStack();

  it('with trustProxy 1: each client behind the proxy has its own payment rate limit, and the upstream sees the hop the gateway saw', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url, { stripeApi: emulator.url, newPaymentRateLimit: LIMIT, trustProxy: 1 });
    await expectPerClientBuckets(running.url, 'GET /paid');
    expect(upstream.seen.at(-1)?.headers['x-forwarded-for']).toBe('198.51.100.2, 127.0.0.1');
  });

  it('without trustProxy: the clients share the proxy\'s address', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url, { stripeApi: emulator.url, newPaymentRateLimit: LIMIT });
    await expectOneSharedBucket(running.url, 'GET /paid');
  });
});
