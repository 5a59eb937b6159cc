// Unit tests of createUpstreamFailureMetrics: both statuses present from the start, counted apart, in the registry given.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseMetrics, total } from 'credit402-tooling/testing/scrape-metrics';
import { createUpstreamFailureMetrics } from './upstream-failures.ts';

const FAILURES = 'credit402_gateway_upstream_failures_total';

describe('createUpstreamFailureMetrics', () => {
  it('shows 502 and 504 at 0 before any failure, then counts each apart', async () => {
    const failures = createUpstreamFailureMetrics();
    expect(parseMetrics(await failures.metrics()).filter((sample) => sample.name === FAILURES)).toEqual([
      { name: FAILURES, labels: { status: '502' }, value: 0 },
      { name: FAILURES, labels: { status: '504' }, value: 0 },
    ]);
    failures.count(502);
    failures.count(502);
    failures.count(504);
    const samples = parseMetrics(await failures.metrics());
    expect(total(samples, FAILURES, { status: '502' })).toBe(2);
    expect(total(samples, FAILURES, { status: '504' })).toBe(1);
  });

  it('registers in the registry it is given', async () => {
    const registry = new Registry();
    createUpstreamFailureMetrics(registry).count(504);
    expect(total(parseMetrics(await registry.metrics()), FAILURES, { status: '504' })).toBe(1);
  });
});
