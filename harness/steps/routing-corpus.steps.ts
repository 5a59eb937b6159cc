// Steps of the routing corpus (CR-4.9, CR-4.10): variants of the gated routes' targets, each sent unpaid and paid, judged on agreement.
import assert from 'node:assert/strict';
import { firstOf } from '../world/check.ts';
import { corpusFindings, sendCorpus } from '../world/routing-corpus.ts';
import { expectVerdict, type CorpusVerdict } from '../world/routing-corpus-verdicts.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then, When } from './define.ts';

When(
  /^I send ([A-Z]+)\s+(?:with "([^":]+): ([^"]*)"\s+)?to each target unpaid, then spending the clientId: (.+)$/,
  // The balance probes spend the clientId on gated routes: a probe not served breaks the deduction (CR-6.2).
  'CR-6.2',
  async function (this: ConformanceWorld, method: string, header: string | undefined, value: string | undefined, list: string) {
    const headers: Record<string, string> = header === undefined ? {} : { [header]: value ?? '' };
    this.corpus = await sendCorpus(this, method, headers, list.trim().split(/\s+/));
  },
);

Then('no gated handler answered unpaid, and every deducted price came with its handler\'s answer', 'CR-4.9', function (this: ConformanceWorld) {
  const findings = this.corpus.flatMap((variant) => corpusFindings(this, variant));
  assert.deepEqual(findings, [], `the gate and the router disagree on ${findings.length} answers:\n${findings.join('\n')}`);
});

Then(
  /^every variant was (refused as ambiguous|gated as the route it names|free|gated or free, as the method is read)$/,
  firstOf(['CR-4.9', 'CR-4.10', 'CR-13.25'], 'CR-4.9'),
  function (this: ConformanceWorld, verdict: CorpusVerdict) {
    for (const variant of this.corpus) expectVerdict(this, variant, verdict);
  },
);
