// The kit's console report (a cucumber formatter): progress, each failure with its transcript, failed requirements, `N passed, N failed`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Formatter, formatterHelpers, Status, type IFormatterOptions } from '@cucumber/cucumber';
import type * as messages from '@cucumber/messages';
import { formatFailure, type ScenarioFailure, type TextAttachment } from './failure-block.ts';
import { ProgressLine } from './progress-line.ts';
import { requirementIds } from './requirement-ids.ts';
import { formatFailedRequirements, RequirementVerdicts } from './requirement-verdicts.ts';
import { parseRequirements } from './spec-requirements.ts';

type TestCaseAttempt = ReturnType<Formatter['eventDataCollector']['getTestCaseAttempt']>;

/** Formatter options under `formatOptions.credit402`. */
export interface ConsoleReportOptions {
  /** Report files to name at the end. */
  reports?: string[];
  /** Seconds between progress lines when stdout is not a TTY. */
  progressIntervalSeconds?: number;
}

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
  readonly #verdicts = new RequirementVerdicts();
  readonly #counts = { total: 0, passed: 0, failed: 0, skipped: 0 };
  readonly #options: ConsoleReportOptions;
  readonly #runErrors: string[] = [];

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
    const { passed, failed, skipped, total } = this.#counts;
    this.#progress.update({ done: passed + failed + skipped, total, failed });
  }

  #onScenarioFinished(attempt: TestCaseAttempt): void {
    const status = attempt.worstTestStepResult.status;
    const passed = status === Status.PASSED;
    if (passed) this.#counts.passed++;
    else if (status === Status.SKIPPED) this.#counts.skipped++;
    else this.#counts.failed++;
    this.#verdicts.record(requirementIds(attempt.pickle.tags.map((tag) => tag.name)), passed || status === Status.SKIPPED);
    if (!passed && status !== Status.SKIPPED) {
      this.#progress.clear();
      this.log(`\n${formatFailure(this.#failure(attempt), this.#counts.failed)}`);
    }
    this.#showProgress();
  }

  #failure(attempt: TestCaseAttempt): ScenarioFailure {
    const parsed = formatterHelpers.parseTestCaseAttempt({
      testCaseAttempt: attempt,
      snippetBuilder: this.snippetBuilder,
      supportCodeLibrary: this.supportCodeLibrary,
    });
    const step = parsed.testSteps.find((candidate) => ![Status.PASSED, Status.SKIPPED].includes(candidate.result.status));
    const result = step?.result ?? attempt.worstTestStepResult;
    const stepName = step === undefined ? '(unknown step)' : step.text !== undefined ? `${step.keyword}${step.text}` : `${step.keyword} hook${step.name ? ` "${step.name}"` : ''}`;
    const message = result.status === Status.UNDEFINED
      ? `no step definition matches this step; a definition could look like:\n${step?.snippet ?? ''}`
      : (result.exception?.message ?? result.message ?? '');
    const location = parsed.testCase.sourceLocation;
    return {
      requirementIds: requirementIds(attempt.pickle.tags.map((tag) => tag.name)),
      feature: attempt.gherkinDocument.feature?.name ?? attempt.pickle.uri,
      scenario: attempt.pickle.name,
      location: location ? `${location.uri}:${location.line}` : attempt.pickle.uri,
      step: stepName,
      status: result.status,
      message,
      attachments: textAttachments(parsed.testSteps),
    };
  }

  #titles(): Map<string, string> {
    try {
      return new Map(parseRequirements(readFileSync(join(this.cwd, 'spec/protocol.md'), 'utf8')).map((requirement) => [requirement.id, requirement.title]));
    } catch {
      return new Map();
    }
  }

  #onRunFinished(): void {
    this.#progress.stop();
    const { passed, failed, skipped } = this.#counts;
    const failedIds = this.#verdicts.failed();
    const lines: string[] = [''];
    for (const error of this.#runErrors) lines.push(error);
    if (failedIds.length > 0) {
      lines.push(formatFailedRequirements(failedIds, this.#titles(), this.#verdicts.all().length).trimEnd());
      lines.push(`re-run them with: --tags "${failedIds.map((verdict) => `@${verdict.id}`).join(' or ')}"`);
    }
    if (skipped > 0) lines.push(`${skipped} skipped`);
    if (this.#options.reports?.length) lines.push(`reports: ${this.#options.reports.join(', ')}`);
    lines.push(`${passed} passed, ${failed} failed`);
    this.log(`${lines.join('\n')}\n`);
  }
}
