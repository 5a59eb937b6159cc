// Per-level verdicts of a run: a target claims a level when every scenario of that level and the levels below passed.
import type { LevelVerdict } from './run-summary.ts';
import { LEVELS, type Level } from './spec-requirements.ts';

/** How one scenario ended, as the report counts it. */
interface ScenarioOutcome {
  level: Level;
  outcome: 'passed' | 'failed' | 'inconclusive' | 'not-run';
  /** Levels of the IDs its failed checks named; empty when it passed. */
  failedLevels: readonly Level[];
}


const rank = (level: Level): number => LEVELS.indexOf(level);

/** Counts scenario outcomes per level. */
export class LevelVerdicts {
  readonly #outcomes: ScenarioOutcome[] = [];

  record(outcome: ScenarioOutcome): void {
    this.#outcomes.push(outcome);
  }

  /** One verdict per level; levels above `runLevel` say why they were not judged. */
  verdicts(runLevel: Level, robustDeclared: boolean): LevelVerdict[] {
    let claimedBelow = true;
    return LEVELS.map((level) => {
      if (rank(level) > rank(runLevel)) {
        claimedBelow = false;
        const note = level === 'robust' && !robustDeclared ? 'not declared' : `not run (--level ${runLevel})`;
        return { level, claimed: false, note };
      }
      // A scenario above the level whose failed checks name a requirement of this level or below counts here too: a
      // finding counts at the level of the IDs it names, whichever scenario makes it (spec §0).
      const mine = this.#outcomes.filter(
        (outcome) => rank(outcome.level) <= rank(level) || (outcome.outcome === 'failed' && outcome.failedLevels.some((failed) => rank(failed) <= rank(level))),
      );
      const judged = mine.filter((outcome) => outcome.outcome === 'passed' || outcome.outcome === 'failed');
      const passed = judged.filter((outcome) => outcome.failedLevels.every((failed) => rank(failed) > rank(level))).length;
      const inconclusive = mine.filter((outcome) => outcome.outcome === 'inconclusive').length;
      // A level without scenarios in this run (a --tags selection) claims nothing and does not block the levels above.
      const claimed = claimedBelow && judged.length > 0 && passed === judged.length && inconclusive === 0;
      if (judged.length > 0 || inconclusive > 0) claimedBelow = claimed;
      return { level, passed, total: judged.length, inconclusive, claimed };
    });
  }
}

/** `wire    120/120 scenarios passed: claimed`, `strict 300/300 scenarios passed, generated histories failed CR-6.9: not claimed` etc. */
export function formatLevelVerdicts(verdicts: readonly LevelVerdict[]): string {
  return verdicts
    .map((verdict) => {
      const name = verdict.level.padEnd(7);
      if (verdict.total === undefined) return `${name}${verdict.note ?? 'not run'}`;
      if (verdict.total === 0 && !verdict.inconclusive) return `${name}no scenario of this level in this run`;
      const inconclusive = verdict.inconclusive ? `, ${verdict.inconclusive} inconclusive` : '';
      const histories = verdict.historyFailed?.length ? `, generated histories failed ${verdict.historyFailed.join(' ')}` : '';
      return `${name}${verdict.passed}/${verdict.total} scenarios passed${inconclusive}${histories}: ${verdict.claimed ? 'claimed' : 'not claimed'}`;
    })
    .join('\n');
}
