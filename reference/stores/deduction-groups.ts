// Group commit of a store's deductions: those asked for in one event-loop turn are committed together, in one transaction.
import type { DeductionResult } from './store.ts';
import type { BackendDeduction } from './store-backend.ts';

/** One deduction's part of a batch: its result, or the error that failed it alone. */
export type DeductionOutcome = { ok: true; result: DeductionResult } | { ok: false; error: unknown };

/** Most deductions in one transaction; a fuller queue is committed at once, without waiting for the turn's end. */
export const MAX_GROUP_SIZE = 256;

/** A deduction waiting for its batch's commit. */
interface Pending {
  deduction: BackendDeduction;
  resolve(result: DeductionResult): void;
  reject(error: unknown): void;
}

/** How a {@link DeductionGroups} commits a batch. */
export interface GroupCommitter {
  /**
   * Commits `deductions` in one transaction and resolves their outcomes, in order, once committed; rejects when
   * nothing was committed. SQLite runs it synchronously at first; Postgres sends one statement.
   */
  commit(deductions: readonly BackendDeduction[]): Promise<DeductionOutcome[]>;
}

/**
 * Queues deductions and commits those of one event-loop turn together (flushed by `setImmediate`, after the
 * turn's I/O callbacks, so that the requests read in one poll share a commit), at most {@link MAX_GROUP_SIZE} per
 * transaction. Each caller's promise settles only after the COMMIT: with its result, with the error SQLite threw
 * for its deduction alone (rolled back to its savepoint), or, when the transaction failed, with that error for
 * every deduction of the batch. Deductions run in the order asked, so two of one client behave as sequential.
 */
export class DeductionGroups {
  readonly #committer: GroupCommitter;
  readonly #storeName: string;
  #pending: Pending[] = [];
  #scheduled = false;

  /** `storeName` names the store in the error of a deduction left without an outcome. */
  constructor(committer: GroupCommitter, storeName: string) {
    this.#committer = committer;
    this.#storeName = storeName;
  }

  /** Queues `deduction` for this turn's commit; settles after it. */
  deduct(deduction: BackendDeduction): Promise<DeductionResult> {
    return new Promise<DeductionResult>((resolve, reject) => {
      this.#pending.push({ deduction, resolve, reject });
      if (this.#pending.length >= MAX_GROUP_SIZE) {
        this.flush();
      } else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#onTurnEnd);
      }
    });
  }

  /**
   * Commits the queued deductions now (SQLite runs their transaction before this returns, unless another
   * connection holds the write lock). SQLite calls it before any other operation, so that operation sees them.
   */
  flush(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.#committer.commit(batch.map((pending) => pending.deduction)).then(
      (outcomes) => {
        batch.forEach((pending, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) pending.resolve(outcome.result);
          else pending.reject(outcome === undefined ? new Error(`${this.#storeName}: a deduction of the batch has no outcome`) : outcome.error);
        });
      },
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
  }

  readonly #onTurnEnd = (): void => {
    this.#scheduled = false;
    this.flush();
  };
}
