// The reference server's metrics endpoint (metricsPath) on every framework: paid requests through the emulator, then a scrape.
import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '../compose/engine-config.ts';
import { paidFetch } from '../testing/paid-fetch.ts';
import { useReferenceStack } from '../testing/reference-stack.ts';
import { scrapeMetrics, total } from '../testing/scrape-metrics.ts';
import { createCardPaymentMethod } from '../testing/test-cards.ts';
import type { Framework } from '../compose/engine-config.ts';

const WEATHER = 'GET /api/weather';

describe.each<Framework>(['fastify', 'express', 'http'])('metrics endpoint on %s', (framework) => {
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
