// The machine-readable summary of a conformance run (conformance-summary.json): what the console, HTML and compare reports read.
import type { Level, RunMode } from './spec-requirements.ts';

/** A text attachment of a scenario (the transcript, logs). */
export interface SummaryAttachment {
  mediaType: string;
  text: string;
}

/** How one scenario ended. */
export type ScenarioOutcome = 'passed' | 'failed' | 'inconclusive' | 'not-run';

/** One scenario of the run. */
export interface ScenarioRecord {
  feature: string;
  /** `features/07-new-payment.feature`. */
  featureUri: string;
  name: string;
  /** `features/x.feature:12`. */
  location: string;
  level: Level;
  outcome: ScenarioOutcome;
  /** The scenario's requirement IDs (its tags), in tag order. */
  ids: string[];
  /** IDs whose checks failed (may include IDs the scenario is not tagged with). */
  failedIds: string[];
  /** Its IDs judged and passed. */
  passedIds: string[];
  /** Its IDs the failure stopped it from judging. */
  notReachedIds: string[];
  /** Why the kit gives no pass/fail verdict (not run, inconclusive). */
  reason?: string;
  /** What the kit could not check in this scenario (said, not failed). */
  notices: string[];
  /** A failed scenario: the failing step, its message, and the transcript attachments. */
  step?: string;
  message?: string;
  attachments: SummaryAttachment[];
}

/** One level's line: scenarios of that level and below, and whether the target claims it. */
export interface LevelVerdict {
  level: Level;
  /** Undefined when the level was not judged in this run. */
  passed?: number;
  total?: number;
  inconclusive?: number;
  claimed: boolean;
  /** Why the level was not judged. */
  note?: string;
}

/** Scenario counts of one requirement ID. */
export interface RequirementVerdict {
  id: string;
  level: Level;
  /** The requirement's title in spec/protocol.md. */
  title?: string;
  passed: number;
  failed: number;
  notReached: number;
  inconclusive: number;
}

/** The summary file. */
export interface RunSummary {
  /** What the run judged: servers (`conformance`, the default when absent) or clients (`client`). */
  mode?: RunMode;
  /** What was run: the target's description and the run's level, when known. */
  target?: string;
  /** The name the target declared (`--declare name=…`): its column in `compare`. */
  name?: string;
  runLevel: Level;
  startedAt?: string;
  passed: number;
  failed: number;
  inconclusive: number;
  notRun: number;
  runErrors: string[];
  levels: LevelVerdict[];
  requirements: RequirementVerdict[];
  scenarios: ScenarioRecord[];
}
