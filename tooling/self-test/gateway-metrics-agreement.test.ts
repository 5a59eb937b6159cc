// The gateway's metrics endpoint, scraped after a conformance run and requests its upstream fails, shows counts that agree with what was done.
import { describe, expect, it } from 'vitest';
import { gatewayMetricsAgreement } from './gateway-metrics-agreement.ts';

describe('gateway metrics after a conformance run and upstream failures', () => {
  it('count the charges, paid requests, refunds (CR-15.3) and upstream failures the run made', async () => {
    const { kitExit, agreements, failingAnswers } = await gatewayMetricsAgreement();
    expect(kitExit).toBe(0);
    expect(failingAnswers).toEqual([200, 504, 502, 502, 502]);
    const run = (prefix: string) => agreements.find((agreement) => agreement.what.startsWith(prefix))?.run;
    expect(run('charges')).toBeGreaterThan(0);
    expect(run('paid requests')).toBeGreaterThan(0);
    expect(run('refunds')).toBe(3);
    for (const agreement of agreements) expect(agreement, agreement.what).toMatchObject({ metric: agreement.run });
  }, 90_000);
});
