// Client scenario hooks: the scenario's level, capabilities and judging, a fresh server script and client, the failure transcript.
import { After, Before, setDefaultTimeout, Status } from '@cucumber/cucumber';
import { CHECKS_MEDIA_TYPE, checksBody, VERDICT_MEDIA_TYPE, verdictBody } from '../report/verdict-attachment.ts';
import { beginChecks, endChecks } from '../world/check.ts';
import { requiredCapabilities } from '../world/declarations.ts';
import { rank, scenarioLevel } from '../world/levels.ts';
import { DriverError, UnsupportedInstruction } from './driver.ts';
import { clientSession } from './session.ts';
import { formatClientTranscript } from './transcript.ts';
import type { ClientWorld } from './world.ts';

setDefaultTimeout(60_000);

/** The spending limit of the `spending-limit` scenarios (CR-16.11), sent with their `reset`. */
export const SPENDING_LIMIT = 60_000;

/** Why a scenario is not run, or undefined when it runs. */
function notRunReason(world: ClientWorld, tags: readonly string[]): string | undefined {
  const level = scenarioLevel(tags);
  if (level === 'robust' && world.declarations.robustness !== true) return 'robust level: the driver does not declare the robustness profile';
  if (rank(level) > rank(world.runLevel)) return `${level} level: the run judges up to ${world.runLevel}`;
  const missing = requiredCapabilities(tags).filter((capability) => !world.declarations.capabilities?.includes(capability));
  if (missing.length > 0) return `capability not declared: ${missing.join(', ')}`;
  const broken = clientSession().driver.failure;
  return broken ? `the driver failed earlier in the run: ${broken.message}` : undefined;
}

/**
 * Runs a driver instruction for a step: a driver that breaks the contract or does not support the instruction makes the
 * scenario not run, never a requirement's failure (the runner reports a breach as the run's error once the run ends).
 */
export async function driven(world: ClientWorld, action: () => Promise<unknown>): Promise<'skipped' | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    if (!(error instanceof DriverError || error instanceof UnsupportedInstruction)) throw error;
    world.attach(verdictBody({ verdict: 'not-run', reason: error.message }), VERDICT_MEDIA_TYPE);
    return 'skipped';
  }
}

Before(async function (this: ClientWorld, { pickle }) {
  const tags = pickle.tags.map((tag) => tag.name);
  const reason = notRunReason(this, tags);
  if (reason !== undefined) {
    this.attach(verdictBody({ verdict: 'not-run', reason }), VERDICT_MEDIA_TYPE);
    return 'skipped';
  }
  this.scenarioName = pickle.name;
  this.tags = tags;
  const { server, driver } = clientSession();
  server.reset();
  const limited = requiredCapabilities(tags).includes('spending-limit');
  const skipped = await driven(this, () => driver.reset(limited ? SPENDING_LIMIT : undefined));
  if (skipped) return skipped;
  beginChecks(this.runLevel, scenarioLevel(tags), tags);
  return undefined;
});

After(function (this: ClientWorld, { result }) {
  const checks = endChecks();
  const deferred = checks?.deferred ?? [];
  if (checks) this.attach(checksBody(checks.checked), CHECKS_MEDIA_TYPE);
  if ((result?.status === Status.FAILED || deferred.length > 0) && this.tags.length > 0) this.attach(formatClientTranscript(this), 'text/plain');
  if (deferred.length > 0) throw new Error(`after the scenario's steps:\n${deferred.map((failure) => failure.message).join('\n')}`);
});
