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
  /** The requirements of this level or below that the generated histories failed (the level is then not claimed). */
  historyFailed?: string[];
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
  /** Whether the generated histories failed it (counted once in `failed`). */
  historyFailed?: boolean;
}

/** The counterexample of a failed history search: shrunk, with what replays it and the transcript of its last run. */
export interface HistoryFailure {
  /** The requirements the broken invariant enforces. */
  ids: string[];
  message: string;
  /** Where in the history it broke (`op 3 (…)`, a closing read, the journal). */
  at: string;
  /** The shrunk history's operations, in words, numbered from 0 as the transcript names them. */
  operations: string[];
  /** The command lines that replay it (fast-check's seed and path, or the replay script). */
  replay: string;
  /** The whole counterexample as the console prints it: verdict, operations, replay, exchanges and the emulator's journal. */
  transcript: string;
}

/** The verdict of the bounded search of generated histories a robust run makes after the suite (`--history-seconds`). */
export interface HistoryVerdict {
  /** passed: the budget ran out with no failure; failed: a history broke an invariant; not-run: the histories could not run. */
  outcome: 'passed' | 'failed' | 'not-run';
  /** fast-check's seed: the run's `--seed`, or a fresh one. */
  seed: number;
  /** The budget in seconds. */
  seconds: number;
  /** Histories run, the failing one included. */
  histories: number;
  durationMs: number;
  /** Why the histories could not run (not-run). */
  reason?: string;
  /** What the histories could not judge or do (a capability not declared, a route missing), said and not failed. */
  notes?: string[];
  /** The answers the histories got, by status and code. */
  answers?: Record<string, number>;
  failure?: HistoryFailure;
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
  /** Skipped scenarios without a reason (a step cucumber skipped). */
  skipped?: number;
  /** What the kit could not check or did not run, each with the number of scenarios it concerns, in the order met. */
  notes?: Array<{ text: string; count: number }>;
  /** The generated histories of a robust run; absent when none were asked for. */
  history?: HistoryVerdict;
}
