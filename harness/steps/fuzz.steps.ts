// Steps of the @fuzz scenario: generated payment headers and the verdict over all answers.
import assert from 'node:assert/strict';
import { checkFor, RequirementFailure } from '../world/check.ts';
import { describeFailures, runFuzz } from '../world/fuzz/run.ts';
import { wireRequirementOf } from '../world/fuzz/wire-failures.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then, When } from './define.ts';

// Sending the values: a target that cannot take them fails closed at the wire level (CR-4.6, CR-8.11).
When('I send {int} generated payment headers to {string}', ['CR-4.6', 'CR-8.11'], async function (this: ConformanceWorld, runs: number, line: string) {
  const seed = this.parameters.fuzzSeed ?? 402;
  const report = await runFuzz(this, line, this.parameters.fuzzRuns ?? runs, seed);
  this.fuzzReport = report;
  const summary = `fuzz: seed ${seed}, ${report.runs} values in ${report.durationMs} ms; ${Object.entries(report.kinds).map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
  this.notes.push(summary);
  if (report.failures.length > 0) this.notes.push('the generated requests are not listed below: the failure message shows one full example per failure class');
  this.log(summary);
}, { timeout: 180_000 });

Then('every generated header got a 402 challenge or an "invalid_payment" payment error, and none reached the processor', ['CR-3.4', 'CR-13.19'], function (this: ConformanceWorld) {
  const report = this.fuzzReport;
  assert.ok(report, 'no fuzz run in this scenario');
  // credit402's decisions on every value: deferred in this wire scenario, so the wire checks below are all made.
  checkFor(['CR-3.4', 'CR-13.19'], () => {
    if (report.failures.length > 0 || report.unattributedCalls.length > 0) assert.fail(describeFailures(report));
  });
  // What the source states about every value, each under its own requirement: the handler never runs unpaid (CR-4.6),
  // every error answer is a 402 (CR-8.11), a value no base64 variant reads is never charged and served (CR-3.5).
  const failed: RequirementFailure[] = [];
  for (const id of ['CR-4.6', 'CR-8.11', 'CR-3.5'] as const) {
    const wire = report.failures.filter((failure) => wireRequirementOf(failure) === id);
    try {
      checkFor(id, () => {
        if (wire.length > 0) assert.fail(describeFailures({ ...report, failures: wire, unattributedCalls: [] }));
      });
    } catch (error) {
      if (!(error instanceof RequirementFailure)) throw error;
      failed.push(error);
    }
  }
  if (failed.length > 0) throw new RequirementFailure(failed.flatMap((failure) => failure.ids), failed.map((failure) => failure.message).join('\n'));
});
