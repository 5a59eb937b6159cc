// The closing block of the console report, from a run's summary: run errors, failed requirements, counts per level, what was not checked, the levels, the history verdict and `N passed, N failed`.
import { formatHistoryVerdict } from './history-verdict.ts';
import { formatLevelVerdicts } from './level-verdicts.ts';
import { formatFailedRequirements, requirementCounts } from './requirement-verdicts.ts';
import type { RunSummary } from './run-summary.ts';
import { LEVELS } from './spec-requirements.ts';

/**
 * The lines printed once a run ended (the console formatter's, or the runner's after the generated histories), ending
 * with `N passed, N failed` (scenarios); a failed history adds `; histories failed <IDs>` to that line. `reports` are the
 * report files to name.
 */
export function formatClosingBlock(summary: RunSummary, reports: readonly string[]): string {
  const all = summary.requirements;
  const failedIds = all.filter((verdict) => verdict.failed > 0);
  const titles = new Map(all.flatMap((verdict) => (verdict.title === undefined ? [] : [[verdict.id, verdict.title] as const])));
  const lines: string[] = [''];
  for (const error of summary.runErrors) lines.push(error);
  if (failedIds.length > 0) {
    lines.push(formatFailedRequirements(failedIds, titles, all.length).trimEnd());
    // A requirement only the histories failed has no scenario to re-run: its replay command is the counterexample's.
    const rerun = failedIds.filter((verdict) => verdict.failed > (verdict.historyFailed ? 1 : 0));
    if (rerun.length > 0) lines.push(`re-run them with: --tags "${rerun.map((verdict) => `@${verdict.id}`).join(' or ')}"`);
  }
  lines.push('requirements:', ...LEVELS.filter((level) => all.some((verdict) => verdict.level === level)).map((level) => `  ${level.padEnd(7)}${requirementCounts(all, level)}`));
  for (const { text, count } of summary.notes ?? []) lines.push(`${count} scenario${count === 1 ? '' : 's'}: ${text}`);
  if (summary.skipped) lines.push(`${summary.skipped} skipped`);
  if (summary.inconclusive > 0) lines.push(`${summary.inconclusive} inconclusive (the kit could not tell; not counted as failed)`);
  if (reports.length > 0) lines.push(`reports: ${reports.join(', ')}`);
  lines.push('levels:', formatLevelVerdicts(summary.levels).replace(/^/gm, '  '));
  if (summary.history) lines.push(`  ${formatHistoryVerdict(summary.history)}`);
  for (const note of summary.history?.notes ?? []) lines.push(`    ${note}`);
  const historyFailed = summary.history?.outcome === 'failed' ? `; histories failed ${summary.history.failure?.ids.join(' ') ?? ''}` : '';
  lines.push(`${summary.passed} passed, ${summary.failed} failed${historyFailed}`);
  return `${lines.join('\n')}\n`;
}
