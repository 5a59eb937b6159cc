// Scheduled reconciliation: the reference server credits succeeded top-ups it missed (no webhook, unknown outcomes) on an interval.
import type { Processor } from '../processor/processor.ts';
import type { Store } from '../stores/store.ts';
import { reconcile, type ReconcileReport } from './reconcile.ts';

/** Default interval of the reference server's scheduled runs with real Stripe or the embedded emulator: 5 minutes. */
export const DEFAULT_RECONCILE_EVERY_MS = 5 * 60 * 1000;
/** Later runs look back to the start of the last successful run minus this margin (a charge still being confirmed then). */
export const RECONCILE_OVERLAP_MS = 60 * 60 * 1000;
/** Largest interval a timer can wait (2^31 - 1 ms). */
export const MAX_RECONCILE_EVERY_MS = 2_147_483_647;

/** Options of {@link scheduleReconcile}. */
interface ReconcileScheduleOptions {
  processor: Processor;
  store: Store;
  /** Interval between the end of one run and the start of the next, in ms (at least 1). */
  everyMs: number;
  /** One line per run; default console.log. */
  log?: (line: string) => void;
  /** A run that failed (store or processor outage); default one line on console.error. The schedule goes on. */
  onError?: (error: unknown) => void;
  /** The clock; default Date.now. */
  now?: () => number;
}

/** A running schedule. */
export interface ReconcileSchedule {
  /** Runs once now, or joins the run under way (runs never overlap); resolves to its report, undefined when it failed or the schedule is stopped. */
  runNow(): Promise<ReconcileReport | undefined>;
  /** Stops the timer and waits for a run under way; no run starts afterwards. */
  stop(): Promise<void>;
}

/** One log line of a run: counts only (client ids are bearer credentials). */
function formatRunLine(report: ReconcileReport, ms: number): string {
  return `credit402 reconcile: ${report.seen} succeeded top-ups since ${report.since}, ${report.alreadyCredited} already credited, `
    + `${report.credited.length} credited now (${report.units} units) in ${ms} ms`;
}

/**
 * Runs {@link reconcile} every `everyMs` (the first run one interval after the start). The first run looks back
 * the default 30 days (bounded by the store's credit retention), later ones from the start of the last successful
 * run minus an hour. The next run is scheduled when one ends, so runs never overlap; the timer does not keep the
 * process alive.
 */
export function scheduleReconcile(options: ReconcileScheduleOptions): ReconcileSchedule {
  const { processor, store, everyMs } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const onError = options.onError ?? ((error: unknown) => console.error(`credit402 reconcile: the scheduled run failed: ${error instanceof Error ? error.message : String(error)}`));
  const now = options.now ?? Date.now;
  let lastStart: number | undefined;
  let running: Promise<ReconcileReport | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function runOnce(): Promise<ReconcileReport | undefined> {
    const started = now();
    try {
      const since = lastStart === undefined ? undefined : new Date(lastStart - RECONCILE_OVERLAP_MS);
      const report = await reconcile({ processor, store, now: new Date(started), ...(since ? { since } : {}) });
      lastStart = started;
      log(formatRunLine(report, now() - started));
      return report;
    } catch (error) {
      onError(error);
      return undefined;
    }
  }

  function arm(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void runNow().finally(arm);
    }, everyMs);
    timer.unref();
  }

  function runNow(): Promise<ReconcileReport | undefined> {
    if (stopped) return running ?? Promise.resolve(undefined);
    running ??= runOnce().finally(() => { running = undefined; });
    return running;
  }

  arm();
  return {
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
