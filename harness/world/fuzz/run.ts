// Runs the @fuzz property: generated `payment` values sent with limited concurrency, each answer judged.
import fc from 'fast-check';
import { withConcurrency } from '../concurrency.ts';
import type { Exchange } from '../exchange.ts';
import { requestLine, type ConformanceWorld } from '../world.ts';
import { fuzzCases, type FuzzCase } from './arbitraries.ts';
import { fuzzVerdict } from './judge-answer.ts';

/** A generated value whose answer was not allowed. */
export interface FuzzFailure {
  fuzzCase: FuzzCase;
  reason: string;
  exchange: Exchange;
}

/** What a fuzz run did. */
export interface FuzzReport {
  seed: number;
  runs: number;
  durationMs: number;
  kinds: Record<string, number>;
  failures: FuzzFailure[];
}

/** Sends `runs` generated values (seeded) to `line` with at most `concurrency` requests in flight. */
export async function runFuzz(world: ConformanceWorld, line: string, runs: number, seed: number, concurrency = 8): Promise<FuzzReport> {
  const started = performance.now();
  const cases = fc.sample(fuzzCases(world.card().paymentMethodId), { numRuns: runs, seed });
  const { key } = requestLine(line);
  const challenge = world.expect.challenge(key, key.slice(key.indexOf(' ') + 1));
  const kinds: Record<string, number> = {};
  const failures: FuzzFailure[] = [];
  await world.processor.markRequest();
  await withConcurrency(cases, concurrency, async (fuzzCase) => {
    kinds[fuzzCase.kind] = (kinds[fuzzCase.kind] ?? 0) + 1;
    const exchange = await world.send(line, { payment: fuzzCase.value, mark: false, record: false });
    const reason = fuzzVerdict(exchange, fuzzCase.allowed, challenge);
    if (reason) failures.push({ fuzzCase, reason, exchange });
  });
  return { seed, runs, durationMs: Math.round(performance.now() - started), kinds, failures };
}

/** A short text of the first failures, with their values JSON-escaped. */
export function describeFailures(report: FuzzReport, limit = 5): string {
  const lines = report.failures.slice(0, limit).map(({ fuzzCase, reason }, i) => {
    const value = fuzzCase.value.length > 200 ? `${fuzzCase.value.slice(0, 200)}… (${fuzzCase.value.length} chars)` : fuzzCase.value;
    return `  ${i + 1}. [${fuzzCase.kind}] payment: ${JSON.stringify(value)}\n     ${reason}`;
  });
  return `${report.failures.length} of ${report.runs} generated values got a wrong answer (seed ${report.seed}):\n${lines.join('\n')}`;
}
