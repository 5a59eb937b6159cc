// Unit tests of createPrometheusHooks: events in, the credit402 metrics out; no clientId in any label.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseMetrics, total } from 'credit402-tooling/testing/scrape-metrics';
import { createPrometheusHooks, MAX_ROUTE_LABELS, OTHER_ROUTES } from './prometheus.ts';

describe('createPrometheusHooks', () => {
  it('turns each event kind into its metric', async () => {
    const hooks = createPrometheusHooks();
    const route = 'GET /a';
    hooks.onEvent({ type: 'challenge', route, currency: 'usd', reason: 'plain' });
    hooks.onEvent({ type: 'charge', route, currency: 'usd', units: 50_000, minorUnits: 500, chargeId: 'pi_1', client: 'abcdef01' });
    hooks.onEvent({ type: 'credit', route, currency: 'usd', units: 50_000, chargeId: 'pi_1', client: 'abcdef01' });
    hooks.onEvent({ type: 'deduction', route, currency: 'usd', units: 500, balance: 49_500, repeated: false, afterCharge: true, client: 'abcdef01' });
    hooks.onEvent({ type: 'deduction', route, currency: 'usd', units: 0, balance: 49_500, repeated: true, afterCharge: false, client: 'abcdef01' });
    hooks.onEvent({ type: 'refund', route, currency: 'usd', units: 500, client: 'abcdef01' });
    hooks.onEvent({ type: 'payment_error', route, currency: 'usd', code: 'card_declined', status: 402 });
    hooks.onEvent({ type: 'store_unavailable', route, currency: 'usd', operation: 'deductBalance' });
    hooks.onEvent({ type: 'store_call', operation: 'deductBalance', ms: 2, ok: true });
    const text = await hooks.metrics();
    const samples = parseMetrics(text);
    expect(total(samples, 'credit402_challenges_total', { route })).toBe(1);
    expect(total(samples, 'credit402_charges_total', { currency: 'usd' })).toBe(1);
    expect(total(samples, 'credit402_charged_minor_units_total', { currency: 'usd' })).toBe(500);
    expect(total(samples, 'credit402_credited_units_total', { currency: 'usd' })).toBe(50_000);
    expect(total(samples, 'credit402_paid_requests_total', { route, currency: 'usd' })).toBe(2);
    expect(total(samples, 'credit402_deducted_units_total', { currency: 'usd' })).toBe(500);
    expect(total(samples, 'credit402_refunds_total')).toBe(1);
    expect(total(samples, 'credit402_errors_total', { code: 'card_declined' })).toBe(1);
    expect(total(samples, 'credit402_errors_total', { code: 'service_unavailable' })).toBe(1);
    expect(total(samples, 'credit402_store_call_seconds_count', { operation: 'deductBalance' })).toBe(1);
    expect(total(samples, 'credit402_store_call_seconds_sum', { operation: 'deductBalance' })).toBeCloseTo(0.002);
    expect(text).not.toContain('abcdef01');
    expect(hooks.contentType).toMatch(/^text\/plain/);
  });

  it(`keeps at most ${MAX_ROUTE_LABELS} route series, counting any further route under "${OTHER_ROUTES}" (was: one series per key, unbounded)`, async () => {
    const hooks = createPrometheusHooks();
    for (let i = 0; i < MAX_ROUTE_LABELS + 500; i++) {
      hooks.onEvent({ type: 'challenge', route: `GET /t/${i}/items/:item`, currency: 'usd', reason: 'plain' });
      hooks.onEvent({ type: 'deduction', route: `GET /t/${i}/items/:item`, currency: 'usd', units: 1, balance: 0, repeated: false, afterCharge: false, client: 'x' });
    }
    hooks.onEvent({ type: 'challenge', route: 'GET /t/0/items/:item', currency: 'usd', reason: 'plain' });
    const samples = parseMetrics(await hooks.metrics());
    const challenges = samples.filter((sample) => sample.name === 'credit402_challenges_total');
    expect(challenges).toHaveLength(MAX_ROUTE_LABELS + 1);
    expect(total(samples, 'credit402_challenges_total', { route: OTHER_ROUTES })).toBe(500);
    expect(total(samples, 'credit402_challenges_total', { route: 'GET /t/0/items/:item' })).toBe(2);
    expect(total(samples, 'credit402_paid_requests_total', { route: OTHER_ROUTES, currency: 'usd' })).toBe(500);
  });

  it('registers in the registry it is given, and two sets of hooks do not collide', async () => {
    const registry = new Registry();
    const hooks = createPrometheusHooks(registry);
    expect(hooks.registry).toBe(registry);
    createPrometheusHooks();
    hooks.onEvent({ type: 'refund', route: 'GET /a', currency: 'usd', units: 1, client: 'x' });
    expect(total(parseMetrics(await registry.metrics()), 'credit402_refunds_total')).toBe(1);
  });
});
