// Reconciliation: credits every succeeded top-up PaymentIntent the store has not credited (or, in a dry run, lists them).
import type { Processor, SucceededTopUp } from '../processor/processor.ts';
import type { Store } from '../stores/store.ts';
import { isStoreReset } from '../stores/store-identity.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back a run looks by default. */
const DEFAULT_LOOKBACK_MS = 30 * DAY_MS;

/** Options of {@link reconcile}. */
export interface ReconcileOptions {
  processor: Processor;
  store: Store;
  /** Report drift without changing anything (needs the store's `hasCredit`). */
  dryRun?: boolean;
  /** Oldest PaymentIntent creation time to look at; default 30 days ago, never before the store's credit retention. */
  since?: Date;
  /** The current time; default now. */
  now?: Date;
}

/** One succeeded top-up the store had not credited. */
export interface Drift {
  paymentIntentId: string;
  clientId: string;
  units: number;
}

/** What a run saw and did. */
export interface ReconcileReport {
  dryRun: boolean;
  since: string;
  /** Succeeded PaymentIntents carrying valid top-up metadata. */
  seen: number;
  alreadyCredited: number;
  /**
   * Not credited: charged under another store id than the store holds (another store on the processor account, or this
   * store before it was reset, CR-14.13). After a reset, a top-up charged just before it can be here: refund it.
   */
  otherStore: Drift[];
  /** Credited by this run (in a dry run: that would be credited). */
  credited: Drift[];
  /** Units of `credited`. */
  units: number;
}

/** The oldest creation time a run may look at: a marker older than the store keeps could be credited twice. */
function earliestSince(store: Store, now: number): number {
  return store.creditRetentionMs === undefined ? -Infinity : now - store.creditRetentionMs + DAY_MS;
}

/** What a run did with one succeeded top-up: credited it (a dry run: would), found it credited, or left it as another store's. */
type Outcome = 'credited' | 'already' | 'otherStore';

/**
 * Credits `topUp` once (creditTopUp is idempotent), naming the store id its metadata carries: a store that does not hold
 * it refuses (`ERR_STORE_RESET`, CR-14.13). A dry run asks `hasCredit` and compares the store id itself.
 */
async function settle(
  store: Store,
  topUp: SucceededTopUp,
  dry: { hasCredit: (paymentIntentId: string) => Promise<boolean>; storeId: Promise<string> } | undefined,
): Promise<Outcome> {
  const { paymentIntentId, clientId, units, currency, storeId } = topUp;
  if (dry !== undefined) {
    if (storeId !== undefined && storeId !== (await dry.storeId)) return 'otherStore';
    return (await dry.hasCredit(paymentIntentId)) ? 'already' : 'credited';
  }
  try {
    const credit = { clientId, currency, amount: units, paymentIntentId, ...(storeId === undefined ? {} : { storeId }) };
    return (await store.creditTopUp(credit)).credited ? 'credited' : 'already';
  } catch (error) {
    if (isStoreReset(error)) return 'otherStore';
    throw error;
  }
}

/**
 * Lists succeeded top-ups at the processor and credits those the store has not (creditTopUp is
 * idempotent, so a run racing the request path or a webhook credits nothing twice). Rejects with a
 * RangeError when `since` is older than the store keeps its credited markers.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const { processor, store, dryRun = false } = options;
  if (!processor.listSucceededTopUps) throw new TypeError('the processor cannot list succeeded top-ups');
  const hasCredit = dryRun ? store.hasCredit?.bind(store) : undefined;
  if (dryRun && !hasCredit) throw new TypeError('a dry run needs a store with hasCredit');
  const now = (options.now ?? new Date()).getTime();
  const earliest = earliestSince(store, now);
  const since = options.since?.getTime() ?? Math.max(now - DEFAULT_LOOKBACK_MS, earliest);
  if (since < earliest) {
    throw new RangeError(`since ${new Date(since).toISOString()} is older than the store keeps credited PaymentIntents (look back at most to ${new Date(earliest).toISOString()})`);
  }
  const report: ReconcileReport = { dryRun, since: new Date(since).toISOString(), seen: 0, alreadyCredited: 0, otherStore: [], credited: [], units: 0 };
  const dry = hasCredit === undefined ? undefined : { hasCredit, storeId: store.getStoreId() };
  dry?.storeId.catch(() => {}); // a failure rejects the run at the first top-up that names a store id
  for await (const topUp of processor.listSucceededTopUps({ since: new Date(since) })) {
    report.seen++;
    const { paymentIntentId, clientId, units } = topUp;
    const outcome = await settle(store, topUp, dry);
    if (outcome === 'already') report.alreadyCredited++;
    else if (outcome === 'otherStore') report.otherStore.push({ paymentIntentId, clientId, units });
    else {
      report.credited.push({ paymentIntentId, clientId, units });
      report.units += units;
    }
  }
  return report;
}

/** The report as the command prints it; client ids are shortened (they are bearer credentials). */
export function formatReport(report: ReconcileReport): string {
  const row = (label: string, value: string | number): string => `  ${`${label}:`.padEnd(24)}${value}`;
  const listed = (drifts: Drift[]): string[] => drifts.map((drift) => `    ${drift.paymentIntentId}  client ${drift.clientId.slice(0, 8)}…  ${drift.units} units`);
  return [
    `credit402 reconcile${report.dryRun ? ' (dry run: nothing changed)' : ''}, PaymentIntents created since ${report.since}`,
    row('succeeded top-ups seen', report.seen),
    row('already credited', report.alreadyCredited),
    row('of another store', `${report.otherStore.length} (charged under another store id, or before a store reset: not credited)`),
    ...listed(report.otherStore),
    row(report.dryRun ? 'would credit' : 'credited now', `${report.credited.length} (${report.units} units)`),
    ...listed(report.credited),
  ].join('\n');
}
