// The generated histories of a robust run in its summary: a failure fails the requirements it is charged to and every level that holds them; the console's line of the verdict.
import { compareIds } from './requirement-ids.ts';
import type { HistoryVerdict, RequirementVerdict, RunSummary } from './run-summary.ts';
import { LEVELS, type Level, type Requirement } from './spec-requirements.ts';

const rank = (level: Level): number => LEVELS.indexOf(level);

/**
 * `summary` with the history verdict in it. A failed history counts once as a failed check of each requirement it is
 * charged to (spec §0: a finding counts at the level of the IDs it names), so that each judged level holding one of
 * them is not claimed and names them; a passed or not-run history changes no verdict. `requirements` are the spec's
 * (readRequirements()): the level and title of an ID no scenario judged.
 */
export function withHistoryVerdict(summary: RunSummary, history: HistoryVerdict, requirements: readonly Requirement[]): RunSummary {
  const ids = history.outcome === 'failed' ? [...new Set(history.failure?.ids ?? [])] : [];
  if (ids.length === 0) return { ...summary, history };
  const spec = new Map(requirements.map((requirement) => [requirement.id, requirement]));
  const verdicts = new Map(summary.requirements.map((verdict) => [verdict.id, { ...verdict }]));
  for (const id of ids) {
    const requirement = spec.get(id);
    const verdict: RequirementVerdict = verdicts.get(id) ?? {
      id,
      level: requirement?.level ?? 'strict',
      ...(requirement ? { title: requirement.title } : {}),
      passed: 0,
      failed: 0,
      notReached: 0,
      inconclusive: 0,
    };
    verdicts.set(id, { ...verdict, failed: verdict.failed + 1, historyFailed: true });
  }
  const levelOf = (id: string): Level => verdicts.get(id)?.level ?? 'strict';
  const levels = summary.levels.map((verdict) => {
    if (verdict.total === undefined) return verdict;
    const failedHere = ids.filter((id) => rank(levelOf(id)) <= rank(verdict.level)).sort(compareIds);
    return failedHere.length === 0 ? verdict : { ...verdict, claimed: false, historyFailed: failedHere };
  });
  return { ...summary, requirements: [...verdicts.values()].sort((a, b) => compareIds(a.id, b.id)), levels, history };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The history verdict in one line: `histories: 37 passed in 10.2 s (seed 42)`, `histories: failed CR-6.9 …`, `histories: not run: …`. */
export function formatHistoryVerdict(history: HistoryVerdict): string {
  const seed = `seed ${history.seed}`;
  if (history.outcome === 'not-run') return `histories: not run: ${history.reason ?? 'no reason given'} (not failed)`;
  if (history.outcome === 'passed') return `histories: ${history.histories} passed in ${seconds(history.durationMs)} (${seed}, a budget of ${history.seconds} s)`;
  const ids = history.failure?.ids.join(' ') ?? '';
  return `histories: failed ${ids} after ${history.histories} histor${history.histories === 1 ? 'y' : 'ies'} in ${seconds(history.durationMs)} (${seed}): the shrunk counterexample is above`;
}
