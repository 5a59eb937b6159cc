// One seeded search of `history`: fast-check draws histories until one fails or the budget ends, then the failure is shrunk (fast-check's shrinking, then the minimizer's cuts).
import fc from 'fast-check';
import { executeHistory, type HistoryEnvironment, type HistoryResult } from './execute.ts';
import { minimize } from './minimize.ts';
import { historyArbitrary, type Operation } from './operations.ts';
import type { ReplayScript } from './script.ts';

/** What one search draws and how long it may take. */
export interface SearchBudget {
  seed: number;
  /** fast-check's shrink path of a printed counterexample, to replay it. */
  path?: string;
  runs: number;
  maxOps: number;
  seconds: number;
}

/** What one search found. */
export interface SearchResult {
  seed: number;
  /** Histories run before the search stopped (the failing one included). */
  runs: number;
  /** fast-check's shrinking steps. */
  shrinks: number;
  /** The smallest failing history found, as a replay script, and its run. */
  failing?: { script: ReplayScript; result: HistoryResult; drawn: number };
  /** A failure of the kit itself (the target unreachable, a control route refused). */
  error?: unknown;
  durationMs: number;
}

/** Every history run, for the tally of answers. */
type Seen = (result: HistoryResult) => void;

/**
 * Searches with `budget.seed`: histories drawn from the environment's routes and capabilities until one breaks an
 * invariant, `budget.runs` passed or `budget.seconds` ran out. A failure is shrunk by fast-check for a sixtieth of the
 * budget (at least 1 s), then cut and pruned by {@link minimize} for a sixth (at least 5 s), on the same requirements.
 */
export async function searchHistories(environment: HistoryEnvironment, budget: SearchBudget, seen: Seen): Promise<SearchResult> {
  const started = Date.now();
  const deadline = started + budget.seconds * 1000;
  const shrinkMs = Math.max(1_000, (budget.seconds * 1000) / 60);
  let failedAt: number | undefined;
  let failing: { operations: Operation[]; result: HistoryResult } | undefined;
  let drawn = 0;
  let error: unknown;
  const shape = {
    routes: environment.routes,
    storeFaults: environment.storeFaults,
    refunds: environment.refunds,
    gateway: environment.upstream !== undefined,
    paidPost: environment.routes.some((route) => route.method === 'POST'),
    maxOps: budget.maxOps,
  };
  const property = fc.asyncProperty(historyArbitrary(shape), async (operations: Operation[]) => {
    if (error !== undefined || Date.now() > deadline || (failedAt !== undefined && Date.now() > failedAt + shrinkMs)) return true;
    let result: HistoryResult;
    try {
      result = await executeHistory(operations, environment);
    } catch (thrown) {
      error = thrown;
      return true;
    }
    seen(result);
    if (failedAt === undefined) drawn++;
    if (!result.violation) return true;
    failing = { operations, result };
    failedAt ??= Date.now();
    return false;
  });
  const details = await fc.check(property, { seed: budget.seed, numRuns: budget.runs, ...(budget.path ? { path: budget.path } : {}), verbose: 0 });
  const found: SearchResult = { seed: budget.seed, runs: drawn, shrinks: details.numShrinks, durationMs: 0, ...(error === undefined ? {} : { error }) };
  if (failing && details.failed && error === undefined) {
    const script: ReplayScript = { seed: budget.seed, ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}), operations: failing.operations };
    found.failing = { ...(await shrunk(environment, script, failing.result, seen, Date.now() + Math.max(5_000, (budget.seconds * 1000) / 6))), drawn };
  }
  found.durationMs = Date.now() - started;
  return found;
}

/** The failing `script` cut and pruned by the minimizer until `deadline`, on the requirements its run failed. */
async function shrunk(environment: HistoryEnvironment, script: ReplayScript, result: HistoryResult, seen: Seen, deadline: number): Promise<{ script: ReplayScript; result: HistoryResult }> {
  const violation = result.violation;
  if (!violation) return { script, result };
  const { ids, failedOp, failedCard } = violation;
  const runOne = async (operations: Operation[]) => {
    const run = await executeHistory(operations, environment);
    seen(run);
    return { ids: run.violation?.ids, failedOp: run.violation?.failedOp, failedCard: run.violation?.failedCard, result: run };
  };
  const smallest = await minimize(script.operations, { ids, failedOp, failedCard, result }, runOne, deadline);
  return { script: { ...script, operations: smallest.operations }, result: smallest.outcome.result };
}
