// Steps of the @fuzz scenario: generated payment headers and the verdict over all answers.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import { readable } from '../world/base64-json.ts';
import { checkFor } from '../world/check.ts';
import { describeFailures, runFuzz, type FuzzReport } from '../world/fuzz/run.ts';
import type { ConformanceWorld } from '../world/world.ts';

When('I send {int} generated payment headers to {string}', { timeout: 180_000 }, async function (this: ConformanceWorld, runs: number, line: string) {
  const seed = this.parameters.fuzzSeed ?? 402;
  const report = await runFuzz(this, line, this.parameters.fuzzRuns ?? runs, seed);
  this.fuzzReport = report;
  const summary = `fuzz: seed ${seed}, ${report.runs} values in ${report.durationMs} ms; ${Object.entries(report.kinds).map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
  this.notes.push(summary);
  if (report.failures.length > 0) this.notes.push('the generated requests are not listed below: the failure message shows one full example per failure class');
  this.log(summary);
});

/**
 * Whether a failure is one the wire level judges too: a 2xx without a successful payment-response, the handler run
 * unpaid (CR-4.6, CR-8.11). A lenient decoder that reads a broken payment and charges it serves a paid request.
 */
const servedUnpaid = (failure: FuzzReport['failures'][number]): boolean => {
  const answer = failure.exchange.answer;
  return answer !== undefined && answer.status >= 200 && answer.status < 300 && readable(answer.paymentResponse)?.success !== true;
};

Then('every generated header got a 402 challenge or an "invalid_payment" payment error, and none reached the processor', function (this: ConformanceWorld) {
  const report = this.fuzzReport;
  assert.ok(report, 'no fuzz run in this scenario');
  const wire = report.failures.filter(servedUnpaid);
  checkFor(['CR-4.6', 'CR-8.11'], () => {
    if (wire.length > 0) assert.fail(describeFailures({ ...report, failures: wire, unattributedCalls: [] }));
  });
  checkFor(['CR-3.4', 'CR-13.19'], () => {
    if (report.failures.length > 0 || report.unattributedCalls.length > 0) assert.fail(describeFailures(report));
  });
});
