// The metrics endpoint, scraped after a conformance run (a subset of scenarios), shows counts that agree with the run.
import { describe, expect, it } from 'vitest';
import { metricsAgreement } from './metrics-agreement.ts';

describe('metrics after a conformance run', () => {
  it('count the charges and amounts the run made, as the server\'s Stripe traffic shows them', async () => {
    const { kitExit, agreements } = await metricsAgreement();
    expect(kitExit).toBe(0);
    expect(agreements.find((agreement) => agreement.what.startsWith('charges'))?.run).toBeGreaterThan(0);
    for (const agreement of agreements) expect(agreement, agreement.what).toMatchObject({ metric: agreement.run });
  }, 90_000);
});
