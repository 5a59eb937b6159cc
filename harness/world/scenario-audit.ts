// What the kit checks after every scenario, whatever its steps said: money charged reached the client or a webhook, handlers ran as answered.
import { RequirementFailure } from './check.ts';
import { checkHandlerRuns } from './handler-runs.ts';
import { CHARGED_NOT_CREDITED_IDS, chargedButNotCredited, webhookCreditedIds } from './money-audit.ts';
import type { ConformanceWorld } from './world.ts';

/** The requirements a handler-run finding names: the handler runs once, and only on success. */
const HANDLER_RUN_IDS = ['CR-1.1', 'CR-4.6'] as const;

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
  const failures = chargedButNotCredited(entries, world.target.exchanges, credited).map((finding) => new RequirementFailure(CHARGED_NOT_CREDITED_IDS, finding));
  const runs = await checkHandlerRuns(world.parameters.targetUrl, world.target.exchanges, world.profile.handledPath);
  if (!runs.checked) return { failures, unchecked: [`handler runs not checked: ${runs.reason}`] };
  failures.push(...runs.findings.map((finding) => new RequirementFailure(HANDLER_RUN_IDS, finding)));
  return { failures, unchecked: [] };
}
