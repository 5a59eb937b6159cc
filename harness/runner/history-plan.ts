// Whether a conformance run makes generated histories after the suite, for how long and with which seed.
import type { RunSummary } from '../report/run-summary.ts';
import { DEFAULT_HISTORY_SECONDS, type RunOptions } from './cli-options.ts';

/**
 * The generated histories a run makes after the suite: a robust run of the whole suite makes them for the default
 * budget, one with `--tags` only when `--history-seconds` asks; `say` tells why none are made when that may surprise.
 */
export function historyPlan(options: RunOptions): { seconds: number; seed: number; say?: string } {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  if (options.level !== 'robust') return { seconds: 0, seed };
  if (options.historySeconds !== undefined) return { seconds: options.historySeconds, seed, ...(options.historySeconds === 0 ? { say: 'no generated histories (--history-seconds 0)' } : {}) };
  if (options.tags) return { seconds: 0, seed, say: 'no generated histories with --tags (--history-seconds S makes them)' };
  return { seconds: DEFAULT_HISTORY_SECONDS, seed };
}

/**
 * Why the suite's outcome leaves the histories nothing to judge, if it does: their ledger model holds a target to the
 * strict rules (one balance per currency, CR-6.8; credit402's metadata on each PaymentIntent, CR-7.17; a failed
 * handler's price kept unless refundOnHandlerError is declared, CR-13.27), so a target that takes a freedom the wire
 * level grants (spec Appendix C) would be failed on a wire requirement it keeps. Histories judge only a target whose
 * run claims the strict level.
 */
export function historiesCannotJudge(summary: Pick<RunSummary, 'levels'>): string | undefined {
  const strict = summary.levels.find((verdict) => verdict.level === 'strict');
  if (strict === undefined || strict.claimed) return undefined;
  return 'the suite did not claim the strict level, whose rules the ledger model of the histories holds a target to (one balance per currency, credit402 metadata on PaymentIntents, a failed handler\'s price kept unless declared): the histories would fail a freedom the wire level grants';
}
