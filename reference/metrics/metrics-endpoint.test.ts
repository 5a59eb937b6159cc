// The reference server's metrics endpoint (metricsPath) on every framework: paid requests through the emulator, then a scrape.
import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '../compose/engine-config.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';
import { scrapeMetrics, total } from 'credit402-tooling/testing/scrape-metrics';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import type { Framework } from '../compose/engine-config.ts';

const WEATHER = 'GET /api/weather';

describe.each<Framework>(['fastify', 'express', 'hono', 'http'])('metrics endpoint on %s', (framework) => {
  const stack = useReferenceStack({ framework, metricsPath: '/metrics' });

  it('counts challenges, charges, paid requests, errors and store calls as they happened, and is never gated', async () => {
    const { url, metricsUrl } = stack.server;
    expect(metricsUrl).toBe(`${url}/metrics`);
    const before = await scrapeMetrics(`${url}/metrics`);
    expect(total(before, 'credit402_charges_total')).toBe(0);

    expect((await paidFetch(url, WEATHER)).status).toBe(402);
    const card = await createCardPaymentMethod(stack.emulator.url);
    const first = await paidFetch(url, WEATHER, { paymentMethodId: card });
    expect(first.status).toBe(200);
    const clientId = (first.paymentResponse as { clientId: string }).clientId;
    for (let i = 0; i < 2; i++) expect((await paidFetch(url, WEATHER, { clientId })).status).toBe(200);
    expect((await paidFetch(url, WEATHER, 'not base64 json!')).status).toBe(402);

    const samples = await scrapeMetrics(`${url}/metrics`);
    const intents = (await stack.control.journal({ path: '/v1/payment_intents', method: 'POST' })).length;
    expect(intents).toBe(1);
    expect(total(samples, 'credit402_charges_total', { currency: 'usd' })).toBe(intents);
    expect(total(samples, 'credit402_charged_minor_units_total', { currency: 'usd' })).toBe(500);
    expect(total(samples, 'credit402_credited_units_total', { currency: 'usd' })).toBe(50_000);
    expect(total(samples, 'credit402_paid_requests_total', { route: WEATHER, currency: 'usd' })).toBe(3);
    expect(total(samples, 'credit402_deducted_units_total', { currency: 'usd' })).toBe(1_500);
    expect(total(samples, 'credit402_challenges_total', { route: WEATHER })).toBe(1);
    expect(total(samples, 'credit402_errors_total', { code: 'invalid_payment' })).toBe(1);
    expect(total(samples, 'credit402_refunds_total')).toBe(0);
    expect(total(samples, 'credit402_store_call_seconds_count', { operation: 'deductBalance' })).toBe(4);
    // A bearer credential never reaches the metrics.
    expect(JSON.stringify(samples)).not.toContain(clientId);
  });

  it('answers HEAD too, refuses other methods with 405, and a paid route is not what serves it', async () => {
    const response = await fetch(`${stack.server.url}/metrics`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('payment-required')).toBeNull();
    const post = await fetch(`${stack.server.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('metrics endpoint off by default', () => {
  const stack = useReferenceStack();

  it('is not served without metricsPath', async () => {
    expect(stack.server.metricsUrl).toBeUndefined();
    expect((await fetch(`${stack.server.url}/metrics`)).status).toBe(404);
  });
});

describe('metricsPath configuration', () => {
  it('is read from CREDIT402_METRICS_PATH and refused on a gated or free route', () => {
    expect(loadServerConfig({ env: { CREDIT402_METRICS_PATH: '/metrics' } }).metricsPath).toBe('/metrics');
    expect(() => loadServerConfig({ overrides: { metricsPath: '/api/weather' } })).toThrowError(/collides with the route GET \/api\/weather/);
    const routes = { 'GET /api/files/*': { amount: 1 }, 'GET /api/users/:id': { amount: 1 } };
    expect(() => loadServerConfig({ overrides: { routes, metricsPath: '/api/files/metrics' } })).toThrowError(/collides with the route GET \/api\/files\/\*/);
    expect(() => loadServerConfig({ overrides: { routes, metricsPath: '/api/users/metrics' } })).toThrowError(/collides with the route GET \/api\/users\/:id/);
    expect(() => loadServerConfig({ overrides: { metricsPath: 'metrics' } })).toThrowError(/must be a path starting with \//);
  });
});

const TOKEN = 'metrics-token-0123456789abcdef';

describe.each<Framework>(['fastify', 'express', 'hono', 'http'])('metrics endpoint on %s with metricsToken (issue 34: was open to anyone)', (framework) => {
  const stack = useReferenceStack({ framework, metricsPath: '/metrics', metricsToken: TOKEN });

  it('answers 401 without the bearer token or with another, and the metrics with it', async () => {
    const url = `${stack.server.url}/metrics`;
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`, TOKEN]) {
      const refused = await fetch(url, { headers: authorization === undefined ? {} : { authorization } });
      expect(refused.status, String(authorization)).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await refused.text()).not.toContain('credit402_');
    }
    expect((await fetch(url, { method: 'POST' })).status).toBe(401);
    const scraped = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('credit402_paid_requests_total');
  });
});

describe('metricsToken configuration', () => {
  it('is read from the JSON file or CREDIT402_METRICS_TOKEN, needs metricsPath and a bearer token\'s form (ERR_SERVER_CONFIG)', () => {
    expect(loadServerConfig({ env: { CREDIT402_METRICS_PATH: '/metrics', CREDIT402_METRICS_TOKEN: TOKEN } }).metricsToken).toBe(TOKEN);
    expect(loadServerConfig({ overrides: { metricsPath: '/metrics', metricsToken: TOKEN } }).metricsToken).toBe(TOKEN);
    expect(() => loadServerConfig({ env: { CREDIT402_METRICS_TOKEN: TOKEN } })).toThrowError(/ERR_SERVER_CONFIG.*metricsPath is not/);
    for (const metricsToken of ['short', 'has a space in it, 0123456789', 'x'.repeat(513)]) {
      expect(() => loadServerConfig({ overrides: { metricsPath: '/metrics', metricsToken } }), metricsToken).toThrowError(/ERR_SERVER_CONFIG.*metricsToken/);
    }
  });
});
