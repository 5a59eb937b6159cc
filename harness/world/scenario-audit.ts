// What the kit checks after every scenario, whatever its steps said: money charged reached the client or a webhook, handlers ran as answered.
import { auditsMade, RequirementFailure } from './check.ts';
import { checkHandlerRuns } from './handler-runs.ts';
import { auditCharges, CHARGED_NOT_CREDITED_IDS, CHARGED_TWICE_ID, webhookCreditedIds } from './money-audit.ts';
import type { ConformanceWorld } from './world.ts';

/** The requirements of the handler-run checks: a served request's handler runs exactly once (CR-1.1), an unserved one's never (CR-4.6). */
const HANDLER_RUN_IDS = ['CR-1.1', 'CR-4.6'] as const;

/** The requirement a handler-run finding names (a run count the handled route did not give: the served request's, CR-1.1). */
function handlerRunId(finding: string): string {
  return finding.includes('although the request was not served') ? 'CR-4.6' : 'CR-1.1';
}

/** The audit of one scenario: failures, and what the kit could not check (said, not failed). */
interface Audit {
  failures: RequirementFailure[];
  unchecked: string[];
}

/** Audits the scenario after its steps (empty when everything is accounted for). */
export async function auditScenario(world: ConformanceWorld): Promise<Audit> {
  const entries = await world.processor.scenarioEntries();
  const robust = world.tags.includes('@robustness');
  const credited = robust ? webhookCreditedIds(await world.processor.control.events(), world.robustness.webhook.url) : new Set<string>();
  // Every exchange the kit made, the unrecorded ones (the fuzz's) included: money they moved is audited too.
  const exchanges = world.target.audited;
  const money = auditCharges(entries, exchanges, credited, world.robustness.kitPaymentIntents);
  auditsMade([...CHARGED_NOT_CREDITED_IDS, CHARGED_TWICE_ID]);
  const failures = money.findings.map((finding) => new RequirementFailure(finding.id, finding.message));
  const unchecked = money.unknown.map((text) => `money not checked: ${text}`);
  const failing = new Set(Object.keys(world.profile.failingHandlers ?? {}));
  const runs = await checkHandlerRuns(world.parameters.targetUrl, exchanges, world.profile.handledPath, failing);
  if (!runs.checked) return { failures, unchecked: [...unchecked, `handler runs not checked: ${runs.reason}`] };
  auditsMade(HANDLER_RUN_IDS);
  failures.push(...runs.findings.map((finding) => new RequirementFailure(handlerRunId(finding), finding)));
  return { failures, unchecked };
}
