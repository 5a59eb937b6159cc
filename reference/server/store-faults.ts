// Store-fault injection for conformance runs: faults armed per clientId, and a store wrapper that fails the matching calls.
import type { Deduction, Store, TopUpCredit } from '../stores/store.ts';

/**
 * What a fault can name: a store operation of spec §11 that concerns one client, or `any` of them. `recordTransaction`
 * is every write of a transaction record: its own call, and the `deductBalance` and `creditTopUp` that append one.
 */
export const FAULT_OPERATIONS = ['deductBalance', 'addBalance', 'ensureClient', 'getClient', 'creditTopUp', 'recordTransaction', 'listTransactions', 'any'] as const;

/** One of {@link FAULT_OPERATIONS}. */
export type FaultOperation = (typeof FAULT_OPERATIONS)[number];

/** A fault as armed: the next calls of `operation` for `clientId` fail, after `skip` of them went through. */
export interface StoreFaultSpec {
  clientId: string;
  operation: FaultOperation;
  /** Matching calls let through before the fault fires (0: it fires at once). */
  skip: number;
  /** How many calls fail; absent: every matching call until the fault is removed. */
  count?: number;
  /** The failing call first takes effect, then fails: a reply lost after the store applied it (CR-8.12). */
  replyLost?: boolean;
}

/** A fault and how many calls it failed so far. */
interface StoreFaultState extends StoreFaultSpec {
  fired: number;
}

/** The rejection of a call an armed fault failed: to the caller, an outage of the store. */
export class InjectedStoreOutage extends Error {
  override name = 'InjectedStoreOutage';
}

type Armed = StoreFaultState & { passed: number };

const view = ({ passed: _passed, ...state }: Armed): StoreFaultState => ({ ...state });

/** The armed faults of one server, by clientId; at most `limit` at a time. */
export class StoreFaults {
  #faults: Armed[] = [];
  readonly limit: number;

  /** `limit`: how many faults may be armed at once (default 1000). */
  constructor(limit = 1_000) {
    this.limit = limit;
  }

  /** Arms a fault; throws a RangeError when `limit` faults are armed already. */
  arm(spec: StoreFaultSpec): StoreFaultState {
    if (this.#faults.length >= this.limit) throw new RangeError(`${this.limit} store faults are armed already; DELETE some first`);
    const armed: Armed = { ...spec, fired: 0, passed: 0 };
    this.#faults.push(armed);
    return view(armed);
  }

  /** The armed faults, of one client or of all, oldest first. */
  list(clientId?: string): StoreFaultState[] {
    return this.#faults.filter((fault) => clientId === undefined || fault.clientId === clientId).map(view);
  }

  /** Removes the faults of one client (or all of them) and returns them as they ended. */
  clear(clientId?: string): StoreFaultState[] {
    const removed = this.list(clientId);
    this.#faults = clientId === undefined ? [] : this.#faults.filter((fault) => fault.clientId !== clientId);
    return removed;
  }

  /**
   * Called before a store call doing `operations` for `clientId`: throws {@link InjectedStoreOutage} when a fault
   * fires, or returns that outage when the fault loses the reply (the caller makes the call, then throws it).
   */
  check(operations: readonly FaultOperation[], clientId: string): InjectedStoreOutage | undefined {
    for (const fault of this.#faults) {
      if (fault.clientId !== clientId || (fault.operation !== 'any' && !operations.includes(fault.operation))) continue;
      if (fault.count !== undefined && fault.fired >= fault.count) continue;
      if (fault.passed < fault.skip) {
        fault.passed++;
        continue;
      }
      fault.fired++;
      const outage = new InjectedStoreOutage(`injected store ${fault.replyLost ? 'reply loss' : 'outage'}: ${operations[0]} for client ${clientId.slice(0, 12)}…`);
      if (fault.replyLost) return outage;
      throw outage;
    }
    return undefined;
  }
}

/**
 * `store` behind `faults`: each call concerning one client first asks `faults`, and rejects without touching the store
 * when a fault fires (or, for a fault that loses the reply, after the store applied the call). Optional methods are
 * present exactly when `store` has them; the others pass through unchanged.
 */
export function withStoreFaults(store: Store, faults: StoreFaults): Store {
  const logs = store.recordTransaction !== undefined;
  const guard = async <T>(operations: FaultOperation[], clientId: string, call: () => Promise<T>): Promise<T> => {
    const lostReply = faults.check(operations, clientId);
    const result = await call();
    if (lostReply) throw lostReply;
    return result;
  };
  const wrapped: Store = {
    deductBalance: (deduction: Deduction) =>
      guard(deduction.record !== undefined && logs ? ['deductBalance', 'recordTransaction'] : ['deductBalance'], deduction.clientId, () => store.deductBalance(deduction)),
    addBalance: (clientId: string, currency: string, amount: number) => guard(['addBalance'], clientId, () => store.addBalance(clientId, currency, amount)),
    ensureClient: (clientId: string) => guard(['ensureClient'], clientId, () => store.ensureClient(clientId)),
    getClient: (clientId: string) => guard(['getClient'], clientId, () => store.getClient(clientId)),
    creditTopUp: (credit: TopUpCredit) =>
      guard(logs ? ['creditTopUp', 'recordTransaction'] : ['creditTopUp'], credit.clientId, () => store.creditTopUp(credit)),
    close: () => store.close(),
  };
  const { recordTransaction, listTransactions } = store;
  if (recordTransaction) wrapped.recordTransaction = (record) => guard(['recordTransaction'], record.clientId, () => recordTransaction.call(store, record));
  if (listTransactions) wrapped.listTransactions = (clientId) => guard(['listTransactions'], clientId, () => listTransactions.call(store, clientId));
  for (const name of ['hasCredit', 'reverseTopUp', 'hasProcessedEvent', 'markEventProcessed', 'acquireLock', 'releaseLock'] as const) {
    const method = store[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (method) (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => method.apply(store, args);
  }
  return store.creditRetentionMs === undefined ? wrapped : Object.defineProperty(wrapped, 'creditRetentionMs', { get: () => store.creditRetentionMs, enumerable: true });
}
