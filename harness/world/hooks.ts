// Scenario hooks: the scenario's level and judging, journal position at start, deferred failures, failure transcript, faults cleared.
import { After, Before, setDefaultTimeout, Status } from '@cucumber/cucumber';
import { CHECKS_MEDIA_TYPE, checksBody, NOTICE_MEDIA_TYPE, noticeBody, VERDICT_MEDIA_TYPE, verdictBody } from '../report/verdict-attachment.ts';
import { beginChecks, endChecks, judgedFailures } from './check.ts';
import { requiredCapabilities } from './declarations.ts';
import { rank, scenarioLevel } from './levels.ts';
import { auditScenario } from './scenario-audit.ts';
import { formatTranscript } from './transcript.ts';
import type { ConformanceWorld } from './world.ts';

setDefaultTimeout(60_000);

Before(async function (this: ConformanceWorld, { pickle }) {
  const tags = pickle.tags.map((tag) => tag.name);
  const level = scenarioLevel(tags);
  const undeclared = level === 'robust' && this.declarations.robustness !== true;
  if (rank(level) > rank(this.runLevel) || undeclared) {
    const reason = undeclared ? 'robust level: the target does not declare the robustness profile' : `${level} level: the run judges up to ${this.runLevel}`;
    this.attach(verdictBody({ verdict: 'not-run', reason }), VERDICT_MEDIA_TYPE);
    return 'skipped';
  }
  const missing = requiredCapabilities(tags).filter((capability) => !this.declarations.capabilities?.includes(capability));
  if (missing.length > 0) {
    this.attach(verdictBody({ verdict: 'not-run', reason: `capability not declared: ${missing.join(', ')}` }), VERDICT_MEDIA_TYPE);
    return 'skipped';
  }
  beginChecks(this.runLevel, level);
  await this.start(pickle.name, tags);
  return undefined;
});

After(async function (this: ConformanceWorld, { result }) {
  const audit = this.processor ? await auditScenario(this) : { failures: [], unchecked: [] };
  const auditFailures = judgedFailures(audit.failures);
  const checks = endChecks();
  const deferred = checks?.deferred ?? [];
  if (checks) this.attach(checksBody(checks.checked), CHECKS_MEDIA_TYPE);
  await this.processor?.refreshFaults();
  const faults = this.processor?.faultReport() ?? [];
  for (const fault of faults) this.notes.push(`fault armed: ${fault.kind} × ${fault.count} on ${fault.scope}; fired ${fault.fired} time${fault.fired === 1 ? '' : 's'}`);
  const unfired = this.processor?.unfiredFaults() ?? [];
  if (unfired.length > 0) {
    this.attach(verdictBody({ verdict: 'inconclusive', reason: `the injected fault never fired (${unfired.join('; ')})` }), VERDICT_MEDIA_TYPE);
  }
  const findings = [...deferred, ...auditFailures];
  for (const notice of audit.unchecked) {
    this.notes.push(notice);
    this.attach(noticeBody(notice), NOTICE_MEDIA_TYPE);
  }
  const failed = result?.status === Status.FAILED || findings.length > 0 || unfired.length > 0;
  if (failed && this.processor) {
    const journal = await this.processor.scenarioEntries().catch((error: unknown) => `journal unavailable: ${error instanceof Error ? error.message : String(error)}`);
    const text = formatTranscript({
      scenario: this.scenarioName,
      requirementIds: this.tags.filter((tag) => tag.startsWith('@CR-')).map((tag) => tag.slice(1)),
      notes: this.notes,
      exchanges: this.target.exchanges,
      journal,
    });
    this.attach(text, 'text/plain');
  }
  await this.processor?.finish();
  if (findings.length > 0) {
    throw new Error(`after the scenario's steps:\n${findings.map((failure) => failure.message).join('\n')}`);
  }
});
