// Which methods a store has: the required ones, the optional groups (log, robustness, locks), and the checks every user of a store shares.
import type { Store } from './store.ts';

/** The methods every store implements. */
export const REQUIRED_STORE_METHODS = [
  'deductBalance', 'refundDeduction', 'addBalance', 'ensureClient', 'getClient', 'getStoreId', 'creditTopUp', 'close',
] as const;

/**
 * The optional methods by group: the transaction `log`, the `robustness` profile (spec §14: webhook crediting,
 * refunds and disputes, reconciliation), the payment `locks` and the `repeatClaims` of request ids (CR-6.9). Every shipped store has all of them (the log
 * unless `recordTransactions: false`).
 */
const STORE_CAPABILITIES = {
  log: ['recordTransaction', 'listTransactions'],
  robustness: ['hasCredit', 'reverseTopUp', 'hasProcessedEvent', 'markEventProcessed'],
  locks: ['acquireLock', 'releaseLock'],
  repeatClaims: ['confirmRepeat'],
} as const;

/** The name of an optional group of store methods. */
type StoreCapability = keyof typeof STORE_CAPABILITIES;

/** Every optional store method, group by group. */
export const OPTIONAL_STORE_METHODS = [
  ...STORE_CAPABILITIES.log, ...STORE_CAPABILITIES.robustness, ...STORE_CAPABILITIES.locks, ...STORE_CAPABILITIES.repeatClaims,
] as const;

/**
 * The groups whose methods a store must have together or not at all, as checked by {@link storeProblem}: a store
 * that appends records it cannot list (or lists a log it never appends to) would keep a log nobody can read.
 */
const PAIRED_CAPABILITIES: readonly StoreCapability[] = ['log', 'locks'];

/** The methods the webhook engine calls. */
export const WEBHOOK_STORE_METHODS = ['creditTopUp', 'reverseTopUp', 'hasProcessedEvent', 'markEventProcessed'] as const;

/** The store methods the webhook engine calls ({@link WEBHOOK_STORE_METHODS}). */
export type WebhookStore = Pick<Store, 'creditTopUp'> & Required<Pick<Store, 'reverseTopUp' | 'hasProcessedEvent' | 'markEventProcessed'>>;

/** The member `name` of `value`, or undefined when `value` is not an object. */
function memberOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

function hasFunctions(value: unknown, names: readonly string[]): boolean {
  return names.every((name) => typeof memberOf(value, name) === 'function');
}

/**
 * What makes `value` unusable as a {@link Store}, as a sentence for a configuration error, or undefined when
 * nothing does: a required method missing, an optional member present but not a function, or a paired group
 * (`recordTransaction` and `listTransactions`, `acquireLock` and `releaseLock`) half there.
 */
export function storeProblem(value: unknown): string | undefined {
  if (!hasFunctions(value, REQUIRED_STORE_METHODS)) {
    return `store must implement ${REQUIRED_STORE_METHODS.join(', ')} (see reference/stores/README.md)`;
  }
  const broken = OPTIONAL_STORE_METHODS.find((name) => memberOf(value, name) !== undefined && typeof memberOf(value, name) !== 'function');
  if (broken !== undefined) return `store.${broken} must be a function when present`;
  for (const capability of PAIRED_CAPABILITIES) {
    const names = STORE_CAPABILITIES[capability];
    const present = names.filter((name) => memberOf(value, name) !== undefined);
    if (present.length !== 0 && present.length !== names.length) return `store must implement both ${names.join(' and ')}, or neither`;
  }
  return undefined;
}

/** True when `store` has every method the webhook engine calls ({@link WEBHOOK_STORE_METHODS}). */
export function hasWebhookSupport(store: Store): store is Store & WebhookStore {
  return hasFunctions(store, WEBHOOK_STORE_METHODS);
}
