// The faults of one emulator: which fault hits a request, barriers that gather requests, and how often each fault fired.
import { faultMatches, type FaultTarget } from './faults.ts';
import type { ActiveFault } from './control-types.ts';

/** A request hit by a fault: the fault as it was then and, for a barrier, when the request may go on. */
interface FaultHit {
  fault: ActiveFault;
  /** `barrier`: resolves when the barrier opens (all `count` arrived, its hold ended, or it was removed). */
  released?: Promise<void>;
}

interface Barrier {
  waiting: Array<() => void>;
  timer: NodeJS.Timeout;
}

const copy = (fault: ActiveFault): ActiveFault => ({ ...fault });

export class FaultInjector {
  /** Every fault since the last reset, in registration order; used-up and removed ones stay for their counts. */
  readonly #all = new Map<string, ActiveFault>();
  readonly #barriers = new Map<string, Barrier>();

  add(fault: ActiveFault): ActiveFault {
    this.#all.set(fault.id, fault);
    return copy(fault);
  }

  /** Active faults, oldest first; with `all`, used-up and removed ones too. */
  list(all = false): ActiveFault[] {
    return [...this.#all.values()].filter((fault) => all || fault.active).map(copy);
  }

  /** One fault by id, active or not (until `reset`). */
  get(id: string): ActiveFault | undefined {
    const fault = this.#all.get(id);
    return fault && copy(fault);
  }

  /** Deactivates one fault (a barrier lets its held requests go); resolves with its final state, undefined when unknown. */
  remove(id: string): ActiveFault | undefined {
    const fault = this.#all.get(id);
    if (!fault) return undefined;
    this.#end(fault);
    return copy(fault);
  }

  /** Deactivates every fault; their records and counts stay. */
  clear(): void {
    for (const fault of this.#all.values()) this.#end(fault);
  }

  /** Forgets every fault. */
  reset(): void {
    this.clear();
    this.#all.clear();
  }

  /** Uses the oldest active fault matching the request, if any. */
  take(request: FaultTarget): FaultHit | undefined {
    const fault = [...this.#all.values()].find((candidate) => candidate.active && faultMatches(candidate, request));
    if (!fault) return undefined;
    fault.fired += 1;
    if (fault.remaining !== null) fault.remaining -= 1;
    if (fault.kind === 'barrier') {
      const released = this.#gather(fault);
      return { fault: copy(fault), released };
    }
    if (fault.remaining === 0) fault.active = false;
    return { fault: copy(fault) };
  }

  /** Holds a request at the barrier; the first arrival starts the hold, the `count`-th opens it. */
  #gather(fault: ActiveFault): Promise<void> {
    let barrier = this.#barriers.get(fault.id);
    if (!barrier) {
      barrier = { waiting: [], timer: setTimeout(() => this.#end(fault), fault.delayMs ?? 0) };
      barrier.timer.unref();
      this.#barriers.set(fault.id, barrier);
    }
    const { waiting } = barrier;
    const released = new Promise<void>((resolve) => waiting.push(resolve));
    if (fault.remaining === 0) this.#end(fault);
    return released;
  }

  #end(fault: ActiveFault): void {
    fault.active = false;
    const barrier = this.#barriers.get(fault.id);
    if (!barrier) return;
    clearTimeout(barrier.timer);
    this.#barriers.delete(fault.id);
    for (const release of barrier.waiting) release();
  }
}
