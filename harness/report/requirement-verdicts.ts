// Per-requirement verdicts of a run: an ID fails when any scenario tagged with it failed.
import { compareIds } from './requirement-ids.ts';

/** Scenario counts of one requirement ID. */
export interface Verdict {
  id: string;
  scenarios: number;
  failed: number;
}

/** Collects scenario outcomes by requirement ID. */
export class RequirementVerdicts {
  readonly #verdicts = new Map<string, Verdict>();

  record(ids: readonly string[], passed: boolean): void {
    for (const id of ids) {
      const verdict = this.#verdicts.get(id) ?? { id, scenarios: 0, failed: 0 };
      verdict.scenarios++;
      if (!passed) verdict.failed++;
      this.#verdicts.set(id, verdict);
    }
  }

  /** Every ID seen, in numeric order. */
  all(): Verdict[] {
    return [...this.#verdicts.values()].sort((a, b) => compareIds(a.id, b.id));
  }

  /** The IDs with at least one failed scenario, in numeric order. */
  failed(): Verdict[] {
    return this.all().filter((verdict) => verdict.failed > 0);
  }
}

/** The verdict lines printed for failed IDs, with titles when known. */
export function formatFailedRequirements(verdicts: readonly Verdict[], titles: ReadonlyMap<string, string>, totalIds: number): string {
  if (verdicts.length === 0) return '';
  const width = Math.max(...verdicts.map((verdict) => `${verdict.id} ${titles.get(verdict.id) ?? ''}`.trimEnd().length));
  const lines = verdicts.map((verdict) => {
    const name = `${verdict.id} ${titles.get(verdict.id) ?? ''}`.trimEnd();
    return `  ${name.padEnd(width)}  fail (${verdict.failed} of ${verdict.scenarios} scenarios failed)`;
  });
  return `requirements failed: ${verdicts.length} of ${totalIds} checked\n${lines.join('\n')}\n`;
}
