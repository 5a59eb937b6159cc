// The kit's step definitions: cucumber's Given, When and Then, each naming the requirement IDs its step judges. Every
// body is wrapped by `judges` (harness/world/check.ts), so that any failure of a step names requirement IDs; steps
// files register through these, never through '@cucumber/cucumber' directly (harness/world/check-attribution.test.ts).
import { Given as cucumberGiven, Then as cucumberThen, When as cucumberWhen } from '@cucumber/cucumber';
import { judges, type CheckIds } from '../world/check.ts';

type Pattern = string | RegExp;
/** Cucumber's options of a step definition (its own type is not exported). */
interface IDefineStepOptions {
  timeout?: number;
}
type Body<This, Args extends unknown[]> = (this: This, ...args: Args) => unknown;

/**
 * A set-up step. A failure names `ids`, the requirement whose behaviour broke the set-up (e.g. a payment that is not
 * served: CR-7.13), and is thrown at once: the steps after it cannot judge anything.
 */
export function Given<This, Args extends unknown[]>(pattern: Pattern, ids: CheckIds, body: Body<This, Args>, options: IDefineStepOptions = {}): void {
  cucumberGiven<This>(pattern, options, judges(ids, body, { setup: true }));
}

/** An action step (a request, a delivery). A failure names `ids` (e.g. a transport error: CR-4.6) and is thrown at once. */
export function When<This, Args extends unknown[]>(pattern: Pattern, ids: CheckIds, body: Body<This, Args>, options: IDefineStepOptions = {}): void {
  cucumberWhen<This>(pattern, options, judges(ids, body, { setup: true }));
}

/**
 * A check. A failure names `ids` (candidates resolved against the scenario's tags) unless a check inside named its own;
 * above the run's level it is not counted, above the scenario's level it is deferred to the scenario's end.
 */
export function Then<This, Args extends unknown[]>(pattern: Pattern, ids: CheckIds, body: Body<This, Args>, options: IDefineStepOptions = {}): void {
  cucumberThen<This>(pattern, options, judges(ids, body));
}
