// Runs the @fuzz property: generated `payment` values sent with limited concurrency, each answer judged, processor calls tied to values.
import fc from 'fast-check';
import { withConcurrency } from '../concurrency.ts';
import { requestLine } from '../request-line.ts';
import type { ConformanceWorld } from '../world.ts';
import { fuzzCases, type FuzzCase } from './arbitraries.ts';
import type { FuzzFailure } from './failure-classes.ts';
import type { FuzzReport } from './failure-report.ts';
import { fuzzVerdict } from './judge-answer.ts';
import { attributeCalls, type Attribution, type SentValue } from './processor-calls.ts';

export type { FuzzFailure } from './failure-classes.ts';
export { describeFailures, type FuzzReport } from './failure-report.ts';

/**
 * Re-sends alone each value whose processor calls may be another value's (at most `limit`): a value that calls the
 * processor again keeps its calls, plus the new ones; the others lose theirs. Calls no value keeps are untied.
 * The scenario's judged journal position is not moved.
 */
async function confirmAlone(world: ConformanceWorld, line: string, cases: readonly FuzzCase[], attribution: Attribution, limit = 50): Promise<void> {
  const { byIndex, unattributed } = attribution;
  const before = new Set([...byIndex.values()].flat().map(({ entry }) => entry));
  const uncertain = [...byIndex.entries()].filter(([, calls]) => calls.some(({ suspects }) => suspects > 1)).slice(0, limit);
  for (const [index, calls] of uncertain) {
    const since = await world.processor.newestSeq();
    await world.send(line, { payment: (cases[index] as FuzzCase).value, mark: false, record: false });
    const again = await world.processor.entries(since);
    if (again.length === 0) byIndex.delete(index);
    else byIndex.set(index, [...calls, ...again.map((entry) => ({ entry, suspects: 1, resent: true }))]);
  }
  const kept = new Set([...byIndex.values()].flat().map(({ entry }) => entry));
  unattributed.push(...[...before].filter((entry) => !kept.has(entry)));
}

/** Sends `runs` generated values (seeded) to `line` with at most `concurrency` requests in flight. */
export async function runFuzz(world: ConformanceWorld, line: string, runs: number, seed: number, concurrency = 8): Promise<FuzzReport> {
  const started = performance.now();
  const cases = fc.sample(fuzzCases(world.card().paymentMethodId), { numRuns: runs, seed });
  const { key } = requestLine(line);
  const challenge = world.expect.challenge(key, key.slice(key.indexOf(' ') + 1));
  const kinds: Record<string, number> = {};
  const sent: SentValue[] = [];
  const verdicts = new Map<number, string>();
  await world.processor.markRequest();
  await withConcurrency(cases, concurrency, async (fuzzCase, index) => {
    kinds[fuzzCase.kind] = (kinds[fuzzCase.kind] ?? 0) + 1;
    const exchange = await world.send(line, { payment: fuzzCase.value, mark: false, record: false });
    sent.push({ index, value: fuzzCase.value, exchange });
    const verdict = fuzzVerdict(exchange, fuzzCase.allowed, challenge);
    if (verdict) verdicts.set(index, verdict);
  });
  const attribution = attributeCalls(await world.processor.entries(), sent);
  await confirmAlone(world, line, cases, attribution);
  const { byIndex, unattributed } = attribution;
  const failures: FuzzFailure[] = sent
    .filter(({ index }) => verdicts.has(index) || byIndex.has(index))
    .sort((a, b) => a.index - b.index)
    .map(({ index, exchange }) => {
      const verdict = verdicts.get(index);
      return { index, fuzzCase: cases[index] as FuzzCase, exchange, verdict, processorCalls: byIndex.get(index) ?? [] };
    });
  return { seed, runs: cases.length, durationMs: Math.round(performance.now() - started), kinds, failures, unattributedCalls: unattributed };
}
