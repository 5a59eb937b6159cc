// After fast-check's shrinking: the failing history cut after its failing operation, then each operation and each call of a burst left out in turn while it still fails on the same requirements.
import type { Call, Operation } from './operations.ts';

/** What a history run tells the minimizer: the requirements it failed (none: it passed) and the operation it failed at. */
export interface Outcome {
  ids?: readonly string[];
  /** The index of the failing operation; undefined when the failure came after the last one (the closing reads). */
  failedOp?: number;
}

const sameIds = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  a !== undefined && b !== undefined && a.length === b.length && a.every((id) => b.includes(id));

/** The histories one step smaller than `operations`: each operation left out, and each call of a burst (a burst of two becomes one call). */
function smaller(operations: readonly Operation[]): Operation[][] {
  const candidates: Operation[][] = [];
  for (let index = operations.length - 1; index >= 0; index--) candidates.push(operations.filter((_, other) => other !== index));
  operations.forEach((operation, index) => {
    if (operation.op !== 'burst') return;
    operation.calls.forEach((_, dropped) => {
      const calls = operation.calls.filter((__, other) => other !== dropped);
      const replaced: Operation = calls.length === 1 ? { op: 'call', call: calls[0] as Call } : { op: 'burst', calls };
      candidates.push(operations.map((other, at) => (at === index ? replaced : other)));
    });
  });
  return candidates;
}

/**
 * Makes a failing history smaller: first cut after the operation it failed at, then greedily leaves out operations and
 * burst calls while a run still fails on the same requirements, until no smaller history fails or `deadline` (epoch
 * ms) passes. Resolves with the smallest failing history found and the outcome of its run.
 */
export async function minimize<T extends Outcome>(operations: readonly Operation[], failed: T, run: (operations: Operation[]) => Promise<T>, deadline: number): Promise<{ operations: Operation[]; outcome: T }> {
  let best = { operations: [...operations], outcome: failed };
  if (failed.failedOp !== undefined && failed.failedOp + 1 < operations.length) {
    const cut = operations.slice(0, failed.failedOp + 1);
    const outcome = await run(cut);
    if (sameIds(outcome.ids, failed.ids)) best = { operations: cut, outcome };
  }
  let progress = true;
  while (progress && Date.now() < deadline) {
    progress = false;
    for (const candidate of smaller(best.operations)) {
      if (Date.now() >= deadline) break;
      const outcome = await run(candidate);
      if (!sameIds(outcome.ids, failed.ids)) continue;
      best = { operations: candidate, outcome };
      progress = true;
      break;
    }
  }
  return best;
}
