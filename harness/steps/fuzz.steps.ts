// Steps of the @fuzz scenario: generated payment headers and the verdict over all answers.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import { describeFailures, runFuzz, type FuzzReport } from '../world/fuzz/run.ts';
import type { ConformanceWorld } from '../world/world.ts';

const reports = new WeakMap<ConformanceWorld, FuzzReport>();

When('I send {int} generated payment headers to {string}', { timeout: 180_000 }, async function (this: ConformanceWorld, runs: number, line: string) {
  const seed = this.parameters.fuzzSeed ?? 402;
  const report = await runFuzz(this, line, this.parameters.fuzzRuns ?? runs, seed);
  reports.set(this, report);
  const summary = `fuzz: seed ${seed}, ${report.runs} values in ${report.durationMs} ms; ${Object.entries(report.kinds).map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
  this.notes.push(summary);
  this.log(summary);
  this.target.exchanges.push(...report.failures.slice(0, 10).map((failure) => failure.exchange));
});

Then('every generated header got a 402 challenge or an "invalid_payment" payment error', function (this: ConformanceWorld) {
  const report = reports.get(this);
  assert.ok(report, 'no fuzz run in this scenario');
  assert.equal(report.failures.length, 0, describeFailures(report));
});
