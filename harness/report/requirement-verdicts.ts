// Per-requirement verdicts of a run: an ID fails when a check naming it failed; the scenario's other IDs were not reached.
import type { Level } from './spec-requirements.ts';
import { compareIds } from './requirement-ids.ts';

/** Scenario counts of one requirement ID. */
interface Verdict {
  id: string;
  level: Level;
  /** Scenarios that judged the ID and passed. */
  passed: number;
  /** Scenarios where a check naming the ID failed. */
  failed: number;
  /** Failed scenarios that stopped before judging the ID. */
  notReached: number;
  /** Scenarios that could not tell (an injected fault never fired). */
  inconclusive: number;
  /** Whether the generated histories failed it too (counted once in `failed`). */
  historyFailed?: boolean;
}

/** What one scenario says about its IDs. */
interface ScenarioIds {
  /** The scenario's own requirement IDs (its tags), already limited to the run's level. */
  ids: readonly string[];
  /** The IDs its failed checks named (may include IDs it is not tagged with); empty when it passed. */
  failedIds: readonly string[];
  /** Of a failed scenario, the IDs whose checks all ran and passed (the failures were above their level). */
  passedIds?: readonly string[];
  outcome: 'passed' | 'failed' | 'inconclusive';
}

/** Collects scenario outcomes by requirement ID. */
export class RequirementVerdicts {
  readonly #verdicts = new Map<string, Verdict>();
  readonly #levelOf: (id: string) => Level;

  constructor(levelOf: (id: string) => Level) {
    this.#levelOf = levelOf;
  }

  #verdict(id: string): Verdict {
    let verdict = this.#verdicts.get(id);
    if (!verdict) {
      verdict = { id, level: this.#levelOf(id), passed: 0, failed: 0, notReached: 0, inconclusive: 0 };
      this.#verdicts.set(id, verdict);
    }
    return verdict;
  }

  record({ ids, failedIds, passedIds = [], outcome }: ScenarioIds): void {
    if (outcome === 'inconclusive') {
      for (const id of ids) this.#verdict(id).inconclusive++;
      return;
    }
    for (const id of failedIds) this.#verdict(id).failed++;
    for (const id of ids) if (!failedIds.includes(id)) this.#verdict(id)[outcome === 'passed' || passedIds.includes(id) ? 'passed' : 'notReached']++;
  }

  /** Every ID seen, in numeric order. */
  all(): Verdict[] {
    return [...this.#verdicts.values()].sort((a, b) => compareIds(a.id, b.id));
  }

  /** The IDs with at least one failed check, in numeric order. */
  failed(): Verdict[] {
    return this.all().filter((verdict) => verdict.failed > 0);
  }
}

/**
 * The verdict of each ID of a failed scenario, from the checks that ran (not from levels): failed when a failed check
 * named it, passed when a check of it ran and none failed, not reached when none of its checks ran. `judgedIds` are the
 * scenario's IDs the run judges; a failed ID above the run's level (only a set-up step's: a check above it is not made)
 * gets no verdict.
 */
export function failedScenarioIds(judgedIds: readonly string[], blamed: readonly string[], checked: ReadonlySet<string>, judged: (id: string) => boolean): { failedIds: string[]; passedIds: string[]; notReachedIds: string[] } {
  const failedIds = blamed.filter(judged);
  const rest = judgedIds.filter((id) => !failedIds.includes(id));
  return { failedIds, passedIds: rest.filter((id) => checked.has(id)), notReachedIds: rest.filter((id) => !checked.has(id)) };
}

/** Per level: how many IDs passed, failed, were only not reached, or only inconclusive. */
export function requirementCounts(verdicts: readonly Verdict[], level: Level): string {
  const of = verdicts.filter((verdict) => verdict.level === level);
  const failed = of.filter((verdict) => verdict.failed > 0).length;
  const passed = of.filter((verdict) => verdict.failed === 0 && verdict.passed > 0).length;
  const notReached = of.filter((verdict) => verdict.failed === 0 && verdict.passed === 0 && verdict.notReached > 0).length;
  const inconclusive = of.length - failed - passed - notReached;
  return [`${passed} passed`, `${failed} failed`, notReached && `${notReached} not reached`, inconclusive && `${inconclusive} inconclusive`]
    .filter(Boolean)
    .join(', ');
}

/** The verdict lines printed for failed IDs, with level and title; an ID the generated histories failed says so. */
export function formatFailedRequirements(verdicts: readonly Verdict[], titles: ReadonlyMap<string, string>, totalIds: number): string {
  if (verdicts.length === 0) return '';
  const name = (verdict: Verdict): string => `${verdict.id} [${verdict.level}] ${titles.get(verdict.id) ?? ''}`.trimEnd();
  const width = Math.max(...verdicts.map((verdict) => name(verdict).length));
  const lines = verdicts.map((verdict) => {
    const scenariosFailed = verdict.failed - (verdict.historyFailed ? 1 : 0);
    const judged = verdict.passed + scenariosFailed;
    const notReached = verdict.notReached > 0 ? `, ${verdict.notReached} not reached` : '';
    const scenarios = `${scenariosFailed} of ${judged} scenarios failed${notReached}`;
    const why = !verdict.historyFailed ? scenarios : judged + verdict.notReached > 0 ? `a generated history; ${scenarios}` : 'a generated history';
    return `  ${name(verdict).padEnd(width)}  fail (${why})`;
  });
  return `requirements failed: ${verdicts.length} of ${totalIds} judged\n${lines.join('\n')}\n`;
}
