// Unit tests of createPrometheusHooks: events in, the credit402 metrics out; no clientId in any label.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseMetrics, total } from '../testing/scrape-metrics.ts';
import { createPrometheusHooks } from './prometheus.ts';

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

  it('registers in the registry it is given, and two sets of hooks do not collide', async () => {
    const registry = new Registry();
    const hooks = createPrometheusHooks(registry);
    expect(hooks.registry).toBe(registry);
    createPrometheusHooks();
    hooks.onEvent({ type: 'refund', route: 'GET /a', currency: 'usd', units: 1, client: 'x' });
    expect(total(parseMetrics(await registry.metrics()), 'credit402_refunds_total')).toBe(1);
  });
});
