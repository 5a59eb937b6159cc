// Steps of the @fuzz scenario: generated payment headers and the verdict over all answers.
import assert from 'node:assert/strict';
import { checksFor } from '../world/check.ts';
import type { Allowed } from '../world/fuzz/arbitraries.ts';
import { describeFailures, runFuzz, type FuzzReport } from '../world/fuzz/run.ts';
import { wireRequirementOf } from '../world/fuzz/wire-failures.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then, When } from './define.ts';

// Sending the values: a target that cannot take them fails closed at the wire level (CR-8.11).
When('I send {int} generated payment headers to {string}', 'CR-8.11', async function (this: ConformanceWorld, runs: number, line: string) {
  const seed = this.parameters.fuzzSeed ?? 402;
  const report = await runFuzz(this, line, this.parameters.fuzzRuns ?? runs, seed);
  this.fuzzReport = report;
  const summary = `fuzz: seed ${seed}, ${report.runs} values in ${report.durationMs} ms; ${Object.entries(report.kinds).map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
  this.notes.push(summary);
  if (report.failures.length > 0) this.notes.push('the generated requests are not listed below: the failure message shows one full example per failure class');
  this.log(summary);
}, { timeout: 180_000 });

/** The strict requirement a fuzz value's answer is judged by: its decoding (CR-3.4), a mistyped member (CR-3.8), any other payload (CR-13.19). */
const STRICT_OF: Readonly<Record<Allowed, string>> = { malformed: 'CR-3.4', invalid_payment: 'CR-3.8', 'challenge or invalid_payment': 'CR-13.19' };

Then('every generated header got a 402 challenge or an "invalid_payment" payment error, and none reached the processor', 'CR-13.19', function (this: ConformanceWorld) {
  const report = this.fuzzReport;
  assert.ok(report, 'no fuzz run in this scenario');
  const only = (failures: FuzzReport['failures'], unattributedCalls: FuzzReport['unattributedCalls'] = []) => () => {
    if (failures.length > 0 || unattributedCalls.length > 0) assert.fail(describeFailures({ ...report, failures, unattributedCalls }));
  };
  // What the source states about every value, each under its own requirement: the handler never runs unpaid (CR-4.6),
  // every error answer is a 402 (CR-8.11), a value no base64 variant reads is never charged and served (CR-3.5).
  // credit402's decisions on every value, by the kind of value: deferred in this wire scenario, so the wire checks are all made.
  checksFor([
    ...(['CR-4.6', 'CR-8.11', 'CR-3.5'] as const).map((id) => [id, only(report.failures.filter((failure) => wireRequirementOf(failure) === id))] as const),
    ...(['CR-3.4', 'CR-3.8'] as const).map((id) => [id, only(report.failures.filter((failure) => STRICT_OF[failure.fuzzCase.allowed] === id))] as const),
    ['CR-13.19', only(report.failures.filter((failure) => STRICT_OF[failure.fuzzCase.allowed] === 'CR-13.19'), report.unattributedCalls)] as const,
  ]);
});
