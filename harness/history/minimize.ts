// After fast-check's shrinking: the failing history cut after its failing operation and to the cards it involves, then each operation and each call of a burst left out in turn while it still fails on the same requirements.
import type { Call, Operation } from './operations.ts';

/** What a history run tells the minimizer: the requirements it failed (none: it passed) and the operation it failed at. */
export interface Outcome {
  ids?: readonly string[];
  /** The index of the failing operation; undefined when the failure came after the last one (the closing reads). */
  failedOp?: number;
  /** The card whose closing read failed, when that is where it failed. */
  failedCard?: number;
}

const sameIds = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  a !== undefined && b !== undefined && a.length === b.length && a.every((id) => b.includes(id));

/** The cards an operation involves (none for a fault's own step: its card is its target). */
function cardsOf(operation: Operation): number[] {
  switch (operation.op) {
    case 'call':
      return [operation.call.card];
    case 'burst':
      return operation.calls.map((call) => call.card);
    default:
      return [operation.card];
  }
}

/** `operation` with its `dropped`-th burst call left out (a burst of two becomes one call), or undefined when it is no burst. */
function withoutCall(operation: Operation, dropped: number): Operation | undefined {
  if (operation.op !== 'burst' || dropped >= operation.calls.length) return undefined;
  const calls = operation.calls.filter((_, other) => other !== dropped);
  return calls.length === 1 ? { op: 'call', call: calls[0] as Call } : { op: 'burst', calls };
}

/**
 * Makes a failing history smaller: first cut after the operation it failed at, then keeps only the operations of the
 * cards that operation (or the failed closing read) involves, then tries it with only the first payments before it,
 * then leaves out chunks of halves, quarters and so on,
 * then each operation (from the last) and each call of a burst in turn,
 * keeping every removal after which a run still fails on the same requirements, pass after pass until a pass removes
 * nothing or `deadline` (epoch ms) passes. Resolves with the smallest failing history found and the outcome of its run.
 */
export async function minimize<T extends Outcome>(operations: readonly Operation[], failed: T, run: (operations: Operation[]) => Promise<T>, deadline: number): Promise<{ operations: Operation[]; outcome: T }> {
  let best = { operations: [...operations], outcome: failed };
  const attempt = async (candidate: Operation[]): Promise<boolean> => {
    if (Date.now() >= deadline || candidate.length === 0) return false;
    const outcome = await run(candidate);
    if (!sameIds(outcome.ids, failed.ids)) return false;
    best = { operations: candidate, outcome };
    return true;
  };
  if (failed.failedOp !== undefined && failed.failedOp + 1 < operations.length) await attempt(operations.slice(0, failed.failedOp + 1));
  const failing = failed.failedOp === undefined ? undefined : operations[failed.failedOp];
  const involved = failing ? cardsOf(failing) : failed.failedCard === undefined ? [] : [failed.failedCard];
  if (involved.length > 0) {
    const cards = new Set(involved);
    const own = best.operations.filter((operation) => cardsOf(operation).some((card) => cards.has(card)));
    if (own.length < best.operations.length) await attempt(own);
  }
  // The failing operation with only the first payments before it: what funds the balances it met, often all it needs.
  const last = best.operations.at(-1);
  if (failing && last && best.outcome.failedOp === best.operations.length - 1) {
    const funded = best.operations.slice(0, -1).filter((operation) => operation.op === 'call' && operation.call.pay !== undefined);
    if (funded.length + 1 < best.operations.length) await attempt([...funded, last]);
  }
  // Halves, quarters, …: most of a long history is often beside the point, and a chunk goes in one run.
  for (let size = Math.floor(best.operations.length / 2); size >= 2; size = Math.floor(size / 2)) {
    for (let from = best.operations.length - size; from >= 0; from -= size) {
      await attempt(best.operations.filter((_, at) => at < from || at >= from + size));
    }
  }
  let progress = true;
  while (progress && Date.now() < deadline) {
    progress = false;
    for (let index = best.operations.length - 1; index >= 0; index--) {
      if (await attempt(best.operations.filter((_, other) => other !== index))) progress = true;
    }
    for (let index = best.operations.length - 1; index >= 0; index--) {
      for (let dropped = 0; ; dropped++) {
        const operation = best.operations[index];
        const smaller = operation && withoutCall(operation, dropped);
        if (!smaller) break;
        if (await attempt(best.operations.map((other, at) => (at === index ? smaller : other)))) {
          progress = true;
          dropped--;
        }
      }
    }
  }
  return best;
}
