// Checks that name the one requirement whose text they enforce: a failure blames exactly that ID, at the level the spec gives it.
import { requirementIds } from '../report/requirement-ids.ts';
import { levelOfIds, rank, type Level } from './levels.ts';

/**
 * A failed check: its message starts with the requirement it enforces in brackets, `[CR-13.13] …`, which the report
 * reads back. Several checks of one step that failed together ({@link RequirementFailure.together}) give one line each.
 */
export class RequirementFailure extends Error {
  override name = 'RequirementFailure';
  /** The requirement of each failed check, once each. */
  readonly ids: readonly string[];

  constructor(id: string, message: string, options?: ErrorOptions) {
    super(`[${id}] ${message}`, options);
    this.ids = [id];
  }

  /** Failures of several checks reported at once (one observation that several requirements demand), one line each. */
  static together(failures: readonly RequirementFailure[]): RequirementFailure {
    const [first, ...rest] = failures;
    if (first === undefined) throw new Error('RequirementFailure.together: no failure');
    if (rest.length === 0) return first;
    const joined = new RequirementFailure(first.ids[0] ?? '', '', { cause: first });
    joined.message = failures.map((failure) => failure.message).join('\n');
    Object.defineProperty(joined, 'ids', { value: [...new Set(failures.flatMap((failure) => failure.ids))] });
    return joined;
  }
}

/** The IDs a failure message blames: every `[CR-…]` at the start of a line. */
export function blamedIds(message: string): string[] {
  const ids = new Set<string>();
  for (const [, list = ''] of message.matchAll(/^\[(CR-\d+\.\d+(?:, CR-\d+\.\d+)*)\]/gm)) for (const id of list.split(', ')) ids.add(id);
  return [...ids];
}

/**
 * The requirement of a step shared by scenarios whose expectation different requirements demand (a request served
 * because a pattern route gates it, CR-4.12, or because a clientId pays, CR-6.2): the step lists them, most decisive
 * first, and a scenario's check names the first one the scenario is tagged with (`@CR-4.12`), else `otherwise`, the
 * step's own. Always one requirement.
 */
export interface Premises {
  readonly premises: readonly string[];
  readonly otherwise: string;
}

/** What a check or a step names: its requirement, or the premises a scenario's tags pick one requirement from. */
export type CheckIds = string | Premises;

const ID = /^CR-\d+\.\d+$/;

function requireId(id: unknown, what: string): string {
  if (typeof id !== 'string' || !ID.test(id)) throw new Error(`${what}: not a requirement ID: ${String(id)}`);
  return id;
}

/** The first of `list`, in this order, that the scenario is tagged with, else `otherwise` (see {@link Premises}). */
export function firstOf(list: readonly string[], otherwise: string): Premises {
  if (list.length === 0) throw new Error('firstOf: a step lists at least one premise');
  for (const id of list) requireId(id, 'firstOf');
  return { premises: [...list], otherwise: requireId(otherwise, 'the default of firstOf') };
}

/** Whether `ids` are premises (made by {@link firstOf}). */
export function isPremises(ids: unknown): ids is Premises {
  return typeof ids === 'object' && ids !== null && 'premises' in ids && 'otherwise' in ids;
}

/** Every ID `ids` may name: its requirement, or the premises and the default. */
export function declaredIds(ids: CheckIds): string[] {
  if (isPremises(ids)) return [...new Set([...ids.premises, ids.otherwise])];
  return [requireId(ids, 'a check')];
}

/** The requirement tags of the scenario the running step belongs to (set by {@link judges} and {@link beginChecks}). */
let scenarioTags: readonly string[] = [];

/** The one requirement `ids` names in a scenario with these tags (default: the running scenario's). */
export function resolveId(ids: CheckIds, tags: readonly string[] = scenarioTags): string {
  if (!isPremises(ids)) return requireId(ids, 'checkFor');
  const tagged = new Set(requirementIds(tags));
  return ids.premises.find((id) => tagged.has(id)) ?? ids.otherwise;
}

/** How the running scenario judges: the run's level, the scenario's level, failures deferred to its end, checks made. */
interface CheckContext {
  runLevel: Level;
  scenarioLevel: Level;
  deferred: RequirementFailure[];
  /** IDs whose checks were not made because they are above the run's level. */
  notJudged: Set<string>;
  /** IDs of the checks made in the scenario (passed or failed): the report's "not reached" are the others. */
  checked: Set<string>;
}

let current: CheckContext | undefined;

/** Starts judging a scenario (Before hook); one scenario runs at a time per worker process. */
export function beginChecks(runLevel: Level, scenarioLevel: Level, tags: readonly string[] = []): CheckContext {
  current = { runLevel, scenarioLevel, deferred: [], notJudged: new Set(), checked: new Set() };
  scenarioTags = tags;
  return current;
}

/** Ends the scenario's judging (After hook) and returns its context. */
export function endChecks(): CheckContext | undefined {
  const ended = current;
  current = undefined;
  scenarioTags = [];
  return ended;
}

/** Whether a check of `id` is made in this run (always, outside a scenario); records it as made or as not judged. */
function made(id: string): boolean {
  if (current === undefined) return true;
  if (rank(levelOfIds([id])) > rank(current.runLevel)) {
    current.notJudged.add(id);
    return false;
  }
  current.checked.add(id);
  return true;
}

/** Records the audits' checks after a scenario's steps (money charged, handler runs) as made. */
export function auditsMade(ids: readonly string[]): void {
  for (const id of ids) made(id);
}

/** Of failures found after the steps (the audits'), those the run judges: one above the run's level is not counted. */
export function judgedFailures(failures: readonly RequirementFailure[]): RequirementFailure[] {
  const runLevel = current?.runLevel;
  if (runLevel === undefined) return [...failures];
  return failures.filter((failure) => {
    if (rank(levelOfIds(failure.ids)) <= rank(runLevel)) return true;
    for (const id of failure.ids) current?.notJudged.add(id);
    return false;
  });
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `error` as a failure: its own when it is one, otherwise one naming `id`. */
function asFailure(id: string, error: unknown): RequirementFailure {
  return error instanceof RequirementFailure ? error : new RequirementFailure(id, messageOf(error), { cause: error });
}

/**
 * Throws a failure of the scenario's level, defers one above it, and drops one above the run's level (not made: a
 * check nested in a step, or an outcome the scenario expects for a reason the run does not judge).
 */
function fail(id: string, error: unknown): void {
  const failure = asFailure(id, error);
  if (current) {
    for (const failed of failure.ids) current.checked.add(failed);
    const level = rank(levelOfIds(failure.ids));
    if (level > rank(current.runLevel)) {
      for (const failed of failure.ids) {
        current.checked.delete(failed);
        current.notJudged.add(failed);
      }
      return;
    }
    if (level > rank(current.scenarioLevel)) {
      current.deferred.push(failure);
      return;
    }
  }
  throw failure;
}

/**
 * Runs `check` (plain `node:assert` inside) as the check of one requirement (premises resolved against the running
 * scenario). Above the run's level it is not made; above the scenario's level a failure is deferred to the scenario's
 * end, so the checks of the scenario's own level still run. A failure of a check nested inside keeps the nested
 * check's ID.
 */
export function checkFor(ids: CheckIds, check: () => void): void {
  const id = resolveId(ids);
  if (!made(id)) return;
  try {
    check();
  } catch (error) {
    fail(id, error);
  }
}

/**
 * Runs several checks, each of its own requirement, and throws their failures together: for one observation several
 * requirements demand (the PaymentIntent amount: CR-7.14 and the conversion of CR-1.3), so that each fails on its own.
 */
export function checksFor(checks: ReadonlyArray<readonly [CheckIds, () => void]>): void {
  const failures: RequirementFailure[] = [];
  for (const [ids, check] of checks) {
    try {
      checkFor(ids, check);
    } catch (error) {
      failures.push(asFailure(resolveId(ids), error));
    }
  }
  if (failures.length > 0) throw RequirementFailure.together(failures);
}

/** Runs `fn` with every check made and thrown at once, whatever the levels: for judges that collect failures themselves. */
export function withoutLevels<T>(fn: () => T): T {
  const saved = current;
  current = undefined;
  try {
    return fn();
  } finally {
    current = saved;
  }
}

/** How a step wrapped by {@link judges} fails. */
export interface StepOptions {
  /**
   * A Given or When step: its failure is thrown at once, whatever its level, since the steps after a broken set-up or
   * action cannot judge anything; the failure still names the requirement whose behaviour broke it.
   */
  setup?: boolean;
}

/** The IDs a step function wrapped by {@link judges} declares (read by the kit's attribution test). */
export const STEP_IDS: unique symbol = Symbol.for('credit402.stepIds');

/** A step function wrapped by {@link judges}. */
export type JudgedStep<This, Args extends unknown[], Result> = ((this: This, ...args: Args) => Result) & { readonly [STEP_IDS]: CheckIds };

/** The tags of a cucumber World (`this` of a step): the ConformanceWorld keeps its scenario's tags. */
function tagsOf(world: unknown): readonly string[] | undefined {
  const tags = typeof world === 'object' && world !== null ? (world as { tags?: unknown }).tags : undefined;
  return Array.isArray(tags) && tags.every((tag) => typeof tag === 'string') ? (tags as string[]) : undefined;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';

/**
 * Wraps a step body (sync or async) as the check of one requirement: an error it throws that is not already a
 * {@link RequirementFailure} becomes one naming it, premises resolved against the tags of the World the step runs in
 * (`this.tags`). A Then step follows the levels of {@link checkFor} (above the run's level its failure is not counted,
 * above the scenario's level it is deferred and the next steps run); a set-up step's failure is thrown at once. The
 * wrapper keeps `this`, the arguments and the body's `length`, which cucumber checks against the step's parameters. A
 * failure nested inside keeps its own ID.
 */
export function judges<This, Args extends unknown[], Result>(
  ids: CheckIds,
  body: (this: This, ...args: Args) => Result,
  options: StepOptions = {},
): JudgedStep<This, Args, Result> {
  for (const id of declaredIds(ids)) requireId(id, 'judges');
  const settle = (id: string, error: unknown): void => {
    if (options.setup === true) {
      const failure = asFailure(id, error);
      for (const failed of failure.ids) current?.checked.add(failed);
      throw failure;
    }
    fail(id, error);
  };
  const wrapper = function (this: This, ...args: Args): Result {
    const tags = tagsOf(this);
    if (tags !== undefined) scenarioTags = tags;
    const id = resolveId(ids, tags ?? scenarioTags);
    if (options.setup !== true) made(id);
    let result: Result;
    try {
      result = body.apply(this, args);
    } catch (error) {
      settle(id, error);
      return undefined as Result;
    }
    if (!isThenable(result)) return result;
    return Promise.resolve(result).then(undefined, (error: unknown) => {
      settle(id, error);
      return undefined;
    }) as Result;
  };
  Object.defineProperty(wrapper, 'length', { value: body.length });
  Object.defineProperty(wrapper, 'name', { value: body.name || 'step' });
  Object.defineProperty(wrapper, STEP_IDS, { value: ids });
  return wrapper as JudgedStep<This, Args, Result>;
}
