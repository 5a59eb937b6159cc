// The kit's console report (a cucumber formatter): progress, each failure with its transcript, verdicts per level and requirement, `N passed, N failed`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Formatter, formatterHelpers, Status, type IFormatterOptions } from '@cucumber/cucumber';
import type * as messages from '@cucumber/messages';
import { blamedIds } from '../world/check.ts';
import { levelOfIds, scenarioLevel } from '../world/levels.ts';
import { formatFailure, type ScenarioFailure, type TextAttachment } from './failure-block.ts';
import { formatClosingBlock } from './closing-block.ts';
import { LevelVerdicts } from './level-verdicts.ts';
import { ProgressLine } from './progress-line.ts';
import { requirementIds } from './requirement-ids.ts';
import { failedScenarioIds, RequirementVerdicts } from './requirement-verdicts.ts';
import { judgedInMode, LEVELS, readRequirements, type Level, type RunMode } from './spec-requirements.ts';
import type { RunSummary, ScenarioRecord } from './run-summary.ts';
import { CHECKS_MEDIA_TYPE, NOTICE_MEDIA_TYPE, parseChecks, parseNotice, parseVerdict, VERDICT_MEDIA_TYPE, type VerdictNote } from './verdict-attachment.ts';

type TestCaseAttempt = ReturnType<Formatter['eventDataCollector']['getTestCaseAttempt']>;
type ParsedAttempt = ReturnType<typeof formatterHelpers.parseTestCaseAttempt>;

/** Formatter options under `formatOptions.credit402`. */
interface ConsoleReportOptions {
  /** What the run judges (default server): only that mode's requirements are judged and reported. */
  mode?: RunMode;
  /** Report files to name at the end. */
  reports?: string[];
  /** Seconds between progress lines when stdout is not a TTY. */
  progressIntervalSeconds?: number;
  /** The highest level judged (default strict). */
  runLevel?: Level;
  /** Whether the target declared the robustness profile. */
  robustDeclared?: boolean;
  /** Where the machine-readable summary goes (the runner reads its exit code from it). */
  summaryFile?: string;
  /** What the target is, for the reports. */
  target?: string;
  /** The name the target declared, for the reports. */
  name?: string;
  /** Whether the runner prints the closing block itself, after the generated histories (the summary file is written all the same). */
  deferClosing?: boolean;
}

export type { RunSummary } from './run-summary.ts';

function textAttachments(steps: ReadonlyArray<{ attachments: messages.Attachment[] }>): TextAttachment[] {
  return steps
    .flatMap((step) => step.attachments)
    .filter((attachment) => /^(text\/|application\/json)/.test(attachment.mediaType))
    .map((attachment) => ({
      mediaType: attachment.mediaType,
      text: attachment.contentEncoding === 'BASE64' ? Buffer.from(attachment.body, 'base64').toString('utf8') : attachment.body,
    }));
}

export default class ConsoleFormatter extends Formatter {
  static override readonly documentation = 'credit402 conformance console report';
  readonly #progress: ProgressLine;
  readonly #levels = new Map(readRequirements().map((requirement) => [requirement.id, requirement]));
  readonly #levelMap = new Map([...this.#levels].map(([id, requirement]) => [id, requirement.level]));
  readonly #verdicts = new RequirementVerdicts((id) => this.#levels.get(id)?.level ?? 'strict');
  readonly #levelVerdicts = new LevelVerdicts();
  readonly #counts = { total: 0, passed: 0, failed: 0, skipped: 0, inconclusive: 0, notRun: 0 };
  readonly #notes = new Map<string, number>();
  readonly #options: ConsoleReportOptions;
  readonly #runErrors: string[] = [];
  readonly #scenarios: ScenarioRecord[] = [];
  readonly #startedAt = new Date().toISOString();

  constructor(options: IFormatterOptions) {
    super(options);
    this.#options = (options.parsedArgvOptions.credit402 as ConsoleReportOptions | undefined) ?? {};
    this.#progress = new ProgressLine(this.stream, (this.#options.progressIntervalSeconds ?? 10) * 1000);
    options.eventBroadcaster.on('envelope', (envelope: messages.Envelope) => this.#onEnvelope(envelope));
  }

  #onEnvelope(envelope: messages.Envelope): void {
    if (envelope.testCase) {
      this.#counts.total++;
      this.#showProgress();
    } else if (envelope.testCaseFinished && !envelope.testCaseFinished.willBeRetried) {
      this.#onScenarioFinished(this.eventDataCollector.getTestCaseAttempt(envelope.testCaseFinished.testCaseStartedId));
    } else if (envelope.testRunHookFinished?.result.status === Status.FAILED) {
      const { result } = envelope.testRunHookFinished;
      this.#runErrors.push(`a BeforeAll/AfterAll hook failed: ${result.exception?.message ?? result.message ?? ''}`);
    } else if (envelope.testRunFinished) {
      const { success, message, exception } = envelope.testRunFinished;
      if (!success && (message || exception)) this.#runErrors.push(`the run failed: ${exception?.message ?? message}`);
      this.#onRunFinished();
    }
  }

  #showProgress(): void {
    const { passed, failed, skipped, inconclusive, notRun, total } = this.#counts;
    this.#progress.update({ done: passed + failed + skipped + inconclusive + notRun, total, failed });
  }

  /** Whether the run's mode judges `id` (an ID the spec does not know is judged, so that a wrong tag shows). */
  #inMode(id: string): boolean {
    const requirement = this.#levels.get(id);
    return requirement === undefined || judgedInMode(requirement, this.#options.mode ?? 'server');
  }

  get #runLevel(): Level {
    return this.#options.runLevel ?? 'strict';
  }

  #onScenarioFinished(attempt: TestCaseAttempt): void {
    const status = attempt.worstTestStepResult.status;
    const tags = attempt.pickle.tags.map((tag) => tag.name);
    const level = scenarioLevel(tags, this.#levelMap);
    const judgedIds = requirementIds(tags).filter((id) => this.#inMode(id) && this.#judgedAtRunLevel(id));
    const parsed = formatterHelpers.parseTestCaseAttempt({ testCaseAttempt: attempt, snippetBuilder: this.snippetBuilder, supportCodeLibrary: this.supportCodeLibrary });
    const source = parsed.testCase.sourceLocation;
    const location = source ? `${source.uri}:${source.line}` : attempt.pickle.uri;
    const notices = this.#notices(attempt);
    const note = this.#note(attempt, notices);
    const record: ScenarioRecord = {
      feature: attempt.gherkinDocument.feature?.name ?? attempt.pickle.uri,
      featureUri: attempt.pickle.uri,
      name: attempt.pickle.name,
      location,
      level,
      outcome: 'passed',
      ids: requirementIds(tags),
      failedIds: [],
      passedIds: [],
      notReachedIds: [],
      notices,
      attachments: [],
    };
    if (note?.verdict === 'not-run' || (status === Status.SKIPPED && !note)) {
      this.#counts[note ? 'notRun' : 'skipped']++;
      if (note) this.#count(`not run: ${note.reason}`);
      this.#levelVerdicts.record({ level, outcome: 'not-run', failedLevels: [] });
      Object.assign(record, { outcome: 'not-run', reason: note?.reason ?? 'skipped' });
    } else if (note?.verdict === 'inconclusive') {
      this.#counts.inconclusive++;
      this.#verdicts.record({ ids: judgedIds, failedIds: [], outcome: 'inconclusive' });
      this.#levelVerdicts.record({ level, outcome: 'inconclusive', failedLevels: [] });
      this.#progress.clear();
      this.log(`\n? inconclusive: ${attempt.pickle.name} (${attempt.pickle.uri}): ${note.reason}\n`);
      Object.assign(record, { outcome: 'inconclusive', reason: note.reason });
    } else if (status === Status.PASSED) {
      this.#counts.passed++;
      this.#verdicts.record({ ids: judgedIds, failedIds: [], outcome: 'passed' });
      this.#levelVerdicts.record({ level, outcome: 'passed', failedLevels: [] });
      record.passedIds = judgedIds;
    } else {
      this.#counts.failed++;
      const failure = this.#failure(attempt, parsed, location);
      // A failure that names no requirement is the kit's own (a check without IDs): it fails the scenario's level, blames no requirement.
      const failedLevels = [...failure.failedIds.map((id) => levelOfIds([id], this.#levelMap)), ...(failure.unattributed ? [level] : [])];
      const { failedIds, passedIds, notReachedIds } = failedScenarioIds(judgedIds, failure.failedIds, this.#checked(attempt), (id) => this.#judgedAtRunLevel(id));
      Object.assign(failure, { failedIds, notReachedIds });
      this.#verdicts.record({ ids: judgedIds, failedIds: failure.failedIds, passedIds, outcome: 'failed' });
      this.#levelVerdicts.record({ level, outcome: 'failed', failedLevels });
      this.#progress.clear();
      this.log(`\n${formatFailure(failure, this.#counts.failed)}`);
      Object.assign(record, {
        outcome: 'failed',
        failedIds: failure.failedIds,
        passedIds,
        notReachedIds: failure.notReachedIds,
        step: failure.step,
        message: failure.message,
        attachments: failure.attachments,
      });
    }
    this.#scenarios.push(record);
    this.#showProgress();
  }

  /** Whether the run judges `id`: its level is at most the run's (spec §0: a check above the run's level is not made). */
  #judgedAtRunLevel(id: string): boolean {
    return LEVELS.indexOf(this.#levelMap.get(id) ?? 'strict') <= LEVELS.indexOf(this.#runLevel);
  }

  /** The IDs whose checks were made in a scenario (its hooks' attachment). */
  #checked(attempt: TestCaseAttempt): Set<string> {
    return new Set(this.#attachments(attempt, CHECKS_MEDIA_TYPE).flatMap((body) => parseChecks(body) ?? []));
  }

  /** The notices of a scenario: what the kit could not check in it. */
  #notices(attempt: TestCaseAttempt): string[] {
    return this.#attachments(attempt, NOTICE_MEDIA_TYPE).map(parseNotice).filter((notice): notice is string => notice !== undefined);
  }

  /** The bodies of the scenario's attachments of one media type. */
  #attachments(attempt: TestCaseAttempt, mediaType: string): string[] {
    return Object.values(attempt.stepAttachments)
      .flat()
      .filter((attachment) => attachment.mediaType === mediaType)
      .map((attachment) => (attachment.contentEncoding === 'BASE64' ? Buffer.from(attachment.body, 'base64').toString('utf8') : attachment.body));
  }

  /** Counts the scenario's notices and returns its verdict note, if any. */
  #note(attempt: TestCaseAttempt, notices: readonly string[]): VerdictNote | undefined {
    for (const notice of notices) this.#count(notice);
    return this.#attachments(attempt, VERDICT_MEDIA_TYPE).map(parseVerdict).find((note) => note !== undefined);
  }

  /** Counts a line of the "what the kit could not tell" summary. */
  #count(text: string | undefined): void {
    if (text !== undefined) this.#notes.set(text, (this.#notes.get(text) ?? 0) + 1);
  }

  /** The failure block of a failed scenario; its not-reached IDs are the caller's to set. */
  #failure(attempt: TestCaseAttempt, parsed: ParsedAttempt, location: string): ScenarioFailure & { unattributed: boolean; failedIds: string[] } {
    const failedSteps = parsed.testSteps.filter((candidate) => ![Status.PASSED, Status.SKIPPED].includes(candidate.result.status));
    const blamedByStep = failedSteps.map((failed) => blamedIds(failed.result.exception?.message ?? failed.result.message ?? ''));
    // Every check names its IDs (spec §0): a failure that names none is the kit's, and blames no requirement of the target.
    const unattributed = blamedByStep.some((ids) => ids.length === 0);
    const blamed = [...new Set(blamedByStep.flat())];
    const step = failedSteps[0];
    const result = step?.result ?? attempt.worstTestStepResult;
    const stepName = step === undefined ? '(unknown step)' : step.text !== undefined ? `${step.keyword}${step.text}` : `${step.keyword} hook${step.name ? ` "${step.name}"` : ''}`;
    const message = result.status === Status.UNDEFINED
      ? `no step definition matches this step; a definition could look like:\n${step?.snippet ?? ''}`
      : (result.exception?.message ?? result.message ?? '');
    const kitError = unattributed ? 'the kit could not attribute this failure to a requirement (a check without requirement IDs: a bug of the kit):\n' : '';
    const later = failedSteps.slice(1).map((failed) => `\n${failed.keyword}${failed.text ?? 'hook'}:\n${failed.result.exception?.message ?? failed.result.message ?? ''}`);
    return {
      unattributed,
      failedIds: blamed,
      levelOf: (id: string) => this.#levelMap.get(id) ?? 'strict',
      requirementIds: requirementIds(attempt.pickle.tags.map((tag) => tag.name)),
      feature: attempt.gherkinDocument.feature?.name ?? attempt.pickle.uri,
      scenario: attempt.pickle.name,
      location,
      step: stepName,
      status: result.status,
      message: `${kitError}${message}${later.join('')}`,
      attachments: textAttachments(parsed.testSteps),
    };
  }

  #onRunFinished(): void {
    this.#progress.stop();
    const { passed, failed, skipped, inconclusive, notRun } = this.#counts;
    const levels = this.#levelVerdicts.verdicts(this.#runLevel, this.#options.robustDeclared ?? false);
    const titles = new Map([...this.#levels].map(([id, requirement]) => [id, requirement.title]));
    const requirements = this.#verdicts.all().map((verdict) => ({ ...verdict, ...(titles.has(verdict.id) ? { title: titles.get(verdict.id) } : {}) }));
    const summary: RunSummary = {
      mode: this.#options.mode ?? 'server',
      runLevel: this.#runLevel,
      startedAt: this.#startedAt,
      ...(this.#options.target ? { target: this.#options.target } : {}),
      ...(this.#options.name ? { name: this.#options.name } : {}),
      passed,
      failed,
      inconclusive,
      notRun,
      runErrors: this.#runErrors,
      levels,
      requirements,
      scenarios: this.#scenarios,
      ...(skipped > 0 ? { skipped } : {}),
      notes: [...this.#notes].map(([text, count]) => ({ text, count })),
    };
    // With generated histories to follow, the runner prints the closing block once their verdict is in the summary.
    if (!this.#options.deferClosing) this.log(formatClosingBlock(summary, this.#options.reports ?? []));
    this.#writeSummary(summary);
  }

  #writeSummary(summary: RunSummary): void {
    const file = this.#options.summaryFile;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  }
}
