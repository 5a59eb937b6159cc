// One timer for every pending store call of the same timeout: calls end in the order they start, so a FIFO is enough.

/** A call waiting for its answer or its deadline: a node of the queue's list, unlinked as soon as it settles. */
export interface Pending {
  readonly deadline: number;
  readonly expire: () => void;
  previous: Pending | undefined;
  next: Pending | undefined;
  settled: boolean;
}

/**
 * Deadlines of one duration, watched by one timer instead of a `setTimeout` and `clearTimeout` per call. Entries
 * expire in the order they were added, so the timer only waits for the oldest unsettled one; a settled entry leaves
 * the list at once (it is garbage while still young), and the timer, when it fires early, re-arms for the new oldest.
 */
export class DeadlineQueue {
  #first: Pending | undefined;
  #last: Pending | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly timeoutMs: number) {}

  /** Watches a new call; `expire` runs once if it is still unsettled `timeoutMs` from now. Settle it with {@link settle}. */
  watch(expire: () => void): Pending {
    const entry: Pending = { deadline: performance.now() + this.timeoutMs, expire, previous: this.#last, next: undefined, settled: false };
    if (this.#last === undefined) this.#first = entry;
    else this.#last.next = entry;
    this.#last = entry;
    this.#timer ??= setTimeout(this.#fire, this.timeoutMs);
    return entry;
  }

  /** Marks `entry` settled and takes it out of the list; false when it was already settled (expired or settled). */
  settle(entry: Pending): boolean {
    if (entry.settled) return false;
    entry.settled = true;
    this.#unlink(entry);
    return true;
  }

  #unlink(entry: Pending): void {
    const { previous, next } = entry;
    if (previous === undefined) this.#first = next;
    else previous.next = next;
    if (next === undefined) this.#last = previous;
    else next.previous = previous;
    entry.previous = undefined;
    entry.next = undefined;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (let entry = this.#first; entry !== undefined && entry.deadline <= now; entry = this.#first) {
      entry.settled = true;
      this.#unlink(entry);
      entry.expire();
    }
    if (this.#first !== undefined) this.#timer = setTimeout(this.#fire, Math.max(0, this.#first.deadline - now));
  };
}

const queues = new Map<number, DeadlineQueue>();

/** The process's queue for deadlines of `timeoutMs`. */
export function deadlineQueue(timeoutMs: number): DeadlineQueue {
  let queue = queues.get(timeoutMs);
  if (queue === undefined) {
    queue = new DeadlineQueue(timeoutMs);
    queues.set(timeoutMs, queue);
  }
  return queue;
}
