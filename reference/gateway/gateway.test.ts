// The gateway in front of a plain node:http upstream: forwarding, the gate's headers, 502/504 with the refund (CR-15.3), health, graceful shutdown.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { fundedClient, PRICE, useGatewayStack } from 'credit402-tooling/testing/gateway-stack';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { loadGatewayConfig } from './gateway-config.ts';
import { startGateway } from './start-gateway.ts';

const { upstream: startUpstream, configFor, gateway } = useGatewayStack();

describe('credit402 gateway', () => {
  it('forwards a free request untouched: method, path, query, streamed body and headers both ways, with X-Forwarded-* (CR-15.1, CR-15.2)', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('part one, '));
        controller.enqueue(new TextEncoder().encode('part two'));
        controller.close();
      },
    });
    const response = await fetch(`${running.url}/free/%7Ething?b=2&a=1`, { method: 'PUT', body, duplex: 'half', headers: { 'content-type': 'text/plain', 'x-custom': 'kept', payment: 'not-a-gated-route' } } as RequestInit);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-upstream')).toBe('yes');
    expect(response.headers.get('payment-response')).toBeNull();
    expect(await response.json()).toMatchObject({ method: 'PUT', url: '/free/%7Ething?b=2&a=1', body: 'part one, part two' });
    const [seen] = upstream.seen;
    expect(seen?.headers['x-custom']).toBe('kept');
    expect(seen?.headers['content-type']).toBe('text/plain');
    expect(seen?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen?.headers['x-forwarded-proto']).toBe('http');
    expect(seen?.headers['x-forwarded-host']).toBe(new URL(running.url).host);
    expect(seen?.headers.payment).toBeUndefined();
  });

  it('challenges an unpaid gated request without reaching the upstream', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    const response = await paidFetch(running.url, 'GET /paid');
    expect(response.status).toBe(402);
    expect(upstream.seen).toEqual([]);
  });

  it('forwards a paid request with the path the gate matched, adds payment-response and strips payment (CR-15.1, CR-15.2)', async () => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url);
    const { clientId, balance } = await fundedClient(store, '1');
    const response = await paidFetch(running.url, 'GET /p%61id?x=1', { clientId });
    expect(response.status).toBe(200);
    expect(response.paymentResponse).toMatchObject({ success: true, creditsRemaining: 10_000 - PRICE, clientId });
    expect(response.body).toMatchObject({ method: 'GET', url: '/paid?x=1' });
    expect(upstream.seen[0]?.headers.payment).toBeUndefined();
    expect(await balance()).toBe(10_000 - PRICE);
  });

  it('keeps the payment header towards the upstream with forwardPaymentHeader', async () => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url, { forwardPaymentHeader: true });
    const { clientId } = await fundedClient(store, '2');
    await paidFetch(running.url, 'GET /paid', { clientId });
    expect(upstream.seen[0]?.headers.payment).toBeTypeOf('string');
  });

  it('refuses an ambiguous target without forwarding it (CR-4.10, CR-15.1)', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    // fetch would remove the dot segment itself: send the target as it is.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(`${running.url}/a/../paid`, { path: '/a/../paid' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject).end();
    });
    expect(status).toBe(400);
    expect(upstream.seen).toEqual([]);
  });

  it.each([
    [502, 'refuses the connection', { route: 'GET /paid', slowMs: 0, closed: true, options: {}, client: '3', settledMs: 100 }],
    [504, 'times out', { route: 'GET /slow', slowMs: 1_000, closed: false, options: { upstreamTimeoutMs: 100 }, client: '4', settledMs: 1_100 }],
  ])('answers %i when the upstream %s, and gives the price back once (CR-15.3)', async (status, _failure, { route, slowMs, closed, options, client, settledMs }) => {
    const upstream = await startUpstream(slowMs);
    if (closed) await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
    const { running, store } = await gateway(upstream.url, options);
    const { clientId, balance } = await fundedClient(store, client);
    const response = await paidFetch(running.url, route, { clientId });
    expect(response.status).toBe(status);
    await expect.poll(balance, { timeout: 2_000 }).toBe(10_000);
    await new Promise((resolve) => setTimeout(resolve, settledMs));
    expect(await balance()).toBe(10_000);
  });

  it('passes an upstream 5xx through, keeping the price unless refundOnHandlerError (CR-15.3)', async () => {
    const upstream = await startUpstream();
    const { running, store } = await gateway(upstream.url);
    const { clientId, balance } = await fundedClient(store, '5');
    expect((await paidFetch(running.url, 'GET /fails', { clientId })).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await balance()).toBe(10_000 - PRICE);
    const refunding = await gateway(upstream.url, { refundOnHandlerError: true });
    const other = await fundedClient(refunding.store, '6');
    expect((await paidFetch(refunding.running.url, 'GET /fails', { clientId: other.clientId })).status).toBe(503);
    await expect.poll(other.balance, { timeout: 2_000 }).toBe(10_000);
  });

  it('answers the health endpoint itself, never gated or forwarded (CR-15.4)', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    const response = await fetch(`${running.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
    expect(upstream.seen).toEqual([]);
  });

  it('finishes an in-flight paid request on shutdown, then refuses new connections (CR-15.4)', async () => {
    const upstream = await startUpstream(300);
    const store = new MemoryStore();
    const running = await startGateway(configFor(upstream.url), { store });
    const { clientId } = await fundedClient(store, '7');
    const inFlight = paidFetch(running.url, 'GET /slow', { clientId });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = running.close();
    const response = await inFlight;
    await closed;
    expect(response.status).toBe(200);
    expect(response.paymentResponse).toMatchObject({ success: true, creditsRemaining: 10_000 - PRICE });
    expect(response.body).toMatchObject({ url: '/slow' });
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });

  it('refuses a configuration without an upstream, with a coded error', () => {
    expect(() => loadGatewayConfig({ env: {}, overrides: { stripeApi: 'http://127.0.0.1:9' } })).toThrow(Credit402ConfigError);
    expect(() => configFor('ftp://example.com')).toThrow(/upstream must be an http/);
    expect(() => configFor('http://127.0.0.1:1', { upstreamTimeoutMs: 0 })).toThrow(/upstreamTimeoutMs/);
    expect(() => configFor('http://127.0.0.1:1', { healthPath: '/paid' })).toThrow(/collides/);
    const routes = { 'GET /files/*': { amount: PRICE } };
    expect(() => configFor('http://127.0.0.1:1', { routes, healthPath: '/files/healthz' })).toThrow(/collides with the gated route GET \/files\/\*/);
  });
});
