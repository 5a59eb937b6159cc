// Store-fault injection for conformance runs: faults armed per clientId, and a store wrapper that fails the matching calls.
import { LateDeductionError } from '../stores/deduction-deadline.ts';
import type { Deduction, DeductionRefund, Store, TopUpCredit } from '../stores/store.ts';

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
  /** Each call the fault fires on is held this long first, in ms: a store that hangs (CR-8.12). */
  delayMs?: number;
  /** With `delayMs`: after the hold the call goes on to the store instead of failing (a store that answers late). */
  proceed?: boolean;
}

/** What a fault that fires does to the call: hold it, then fail it (at once, or after applying it), or let it go on. */
export interface FaultFiring {
  /** How long to hold the call first, in ms (0: not at all). */
  delayMs: number;
  /** The rejection of the call, unless it proceeds. */
  outage?: InjectedStoreOutage;
  /** The call is applied, then `outage` is thrown: a reply lost. */
  replyLost: boolean;
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
   * Called before a store call doing `operations` for `clientId`: what the first fault that fires does to it (see
   * {@link FaultFiring}), or undefined when none fires.
   */
  fire(operations: readonly FaultOperation[], clientId: string): FaultFiring | undefined {
    for (const fault of this.#faults) {
      if (fault.clientId !== clientId || (fault.operation !== 'any' && !operations.includes(fault.operation))) continue;
      if (fault.count !== undefined && fault.fired >= fault.count) continue;
      if (fault.passed < fault.skip) {
        fault.passed++;
        continue;
      }
      fault.fired++;
      const delayMs = fault.delayMs ?? 0;
      if (fault.proceed) return { delayMs, replyLost: false };
      const what = fault.replyLost ? 'reply loss' : delayMs > 0 ? `outage after a hold of ${delayMs} ms` : 'outage';
      return { delayMs, replyLost: fault.replyLost === true, outage: new InjectedStoreOutage(`injected store ${what}: ${operations[0]} for client ${clientId.slice(0, 12)}…`) };
    }
    return undefined;
  }
}

/** Resolves after `ms` milliseconds. */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A deduction that reaches `store` `heldMs` after its caller asked for it: with the time its caller still waits
 * (`timeoutMs` minus the hold), or, past that, refused with {@link LateDeductionError} as the store itself refuses a
 * deduction that arrives after its caller's deadline (spec CR-6.9, CR-11.2): the hold stands for the way to the store.
 */
function heldDeduction(store: Store, deduction: Deduction, heldMs: number): Promise<Awaited<ReturnType<Store['deductBalance']>>> {
  if (deduction.timeoutMs === undefined) return store.deductBalance(deduction);
  const left = deduction.timeoutMs - heldMs;
  if (left < 1) return Promise.reject(new LateDeductionError('the store behind the conformance store faults'));
  return store.deductBalance({ ...deduction, timeoutMs: left });
}

/**
 * `store` behind `faults`: each call concerning one client first asks `faults`; when a fault fires, the call is held
 * its `delayMs` (if any), then rejects without touching the store (or, for a fault that loses the reply, after the
 * store applied the call), or with `proceed` goes on to the store (a deduction then only within its caller's deadline,
 * {@link heldDeduction}). Optional methods are present exactly when `store` has them; the others pass through unchanged.
 */
export function withStoreFaults(store: Store, faults: StoreFaults): Store {
  const logs = store.recordTransaction !== undefined;
  const guard = async <T>(operations: FaultOperation[], clientId: string, call: (heldMs: number) => Promise<T>): Promise<T> => {
    const firing = faults.fire(operations, clientId);
    if (firing === undefined) return call(0);
    const started = performance.now();
    if (firing.delayMs > 0) await sleep(firing.delayMs);
    // Whole milliseconds, as a deduction's `timeoutMs` is counted.
    const heldMs = firing.delayMs > 0 ? Math.ceil(performance.now() - started) : 0;
    const { outage } = firing;
    if (outage === undefined) return call(heldMs);
    if (!firing.replyLost) throw outage;
    await call(heldMs);
    throw outage;
  };
  const wrapped: Store = {
    deductBalance: (deduction: Deduction) =>
      guard(deduction.record !== undefined && logs ? ['deductBalance', 'recordTransaction'] : ['deductBalance'], deduction.clientId, (heldMs) =>
        heldMs === 0 ? store.deductBalance(deduction) : heldDeduction(store, deduction, heldMs)),
    // A refund gives balance back, as addBalance did before it forgot the request id too: faults on addBalance reach it.
    refundDeduction: (refund: DeductionRefund) => guard(['addBalance'], refund.clientId, () => store.refundDeduction(refund)),
    addBalance: (clientId: string, currency: string, amount: number) => guard(['addBalance'], clientId, () => store.addBalance(clientId, currency, amount)),
    ensureClient: (clientId: string) => guard(['ensureClient'], clientId, () => store.ensureClient(clientId)),
    getClient: (clientId: string) => guard(['getClient'], clientId, () => store.getClient(clientId)),
    getStoreId: () => store.getStoreId(),
    creditTopUp: (credit: TopUpCredit) =>
      guard(logs ? ['creditTopUp', 'recordTransaction'] : ['creditTopUp'], credit.clientId, () => store.creditTopUp(credit)),
    close: () => store.close(),
  };
  const { recordTransaction, listTransactions, confirmRepeat } = store;
  // The confirmation of a served repeat is not one of the operations a fault names: it passes as it is.
  if (confirmRepeat) wrapped.confirmRepeat = (confirmation) => confirmRepeat.call(store, confirmation);
  if (recordTransaction) wrapped.recordTransaction = (record) => guard(['recordTransaction'], record.clientId, () => recordTransaction.call(store, record));
  if (listTransactions) wrapped.listTransactions = (clientId) => guard(['listTransactions'], clientId, () => listTransactions.call(store, clientId));
  for (const name of ['hasCredit', 'reverseTopUp', 'hasProcessedEvent', 'markEventProcessed', 'acquireLock', 'releaseLock'] as const) {
    const method = store[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (method) (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => method.apply(store, args);
  }
  return store.creditRetentionMs === undefined ? wrapped : Object.defineProperty(wrapped, 'creditRetentionMs', { get: () => store.creditRetentionMs, enumerable: true });
}
