// Checks that name the requirement IDs they judge: a failure blames exactly those IDs, at the level the spec gives them.
import { requirementIds } from '../report/requirement-ids.ts';
import { levelOfIds, rank, requirementLevels, type Level } from './levels.ts';

/** A failed check: its message starts with the IDs in brackets, `[CR-13.13] …`, which the report reads back. */
export class RequirementFailure extends Error {
  override name = 'RequirementFailure';
  readonly ids: readonly string[];

  constructor(ids: readonly string[], message: string, options?: ErrorOptions) {
    super(`[${ids.join(', ')}] ${message}`, options);
    this.ids = ids;
  }
}

/** The IDs a failure message blames: every `[CR-…]` at the start of a line. */
export function blamedIds(message: string): string[] {
  const ids = new Set<string>();
  for (const [, list = ''] of message.matchAll(/^\[(CR-\d+\.\d+(?:, CR-\d+\.\d+)*)\]/gm)) for (const id of list.split(', ')) ids.add(id);
  return [...ids];
}

/**
 * Requirement IDs chosen by the running scenario: the candidates it is tagged with (`@CR-7.7`), else `otherwise`.
 * `all`: every tagged candidate of the lowest level among them (each candidate alone demands the check, so it is judged
 * at the lowest level that demands it; naming a higher one too would make it a check of that level, deferred or not
 * made). `first`: the first tagged candidate in the order given (one cause per scenario, e.g. of one message text).
 */
export interface CandidateIds {
  readonly candidates: readonly string[];
  readonly otherwise: readonly string[];
  readonly pick: 'all' | 'first';
}

/** What a check or a step names: one ID, a fixed list, or candidates resolved against the scenario's tags. */
export type CheckIds = string | readonly string[] | CandidateIds;

const ID = /^CR-\d+\.\d+$/;

function listOf(ids: string | readonly string[], what: string): readonly string[] {
  const list = typeof ids === 'string' ? [ids] : ids;
  if (list.length === 0) throw new Error(`${what}: a check names at least one requirement ID`);
  const wrong = list.filter((id) => !ID.test(id));
  if (wrong.length > 0) throw new Error(`${what}: not requirement IDs: ${wrong.join(', ')}`);
  return list;
}

function candidates(pick: CandidateIds['pick'], list: readonly string[], otherwise: string | readonly string[]): CandidateIds {
  return { candidates: listOf(list, 'candidates'), otherwise: listOf(otherwise, 'the default of candidates'), pick };
}

/** Every candidate the scenario is tagged with (those of the lowest level), else `otherwise`. */
export function among(list: readonly string[], otherwise: string | readonly string[]): CandidateIds {
  return candidates('all', list, otherwise);
}

/** The first candidate, in this order, that the scenario is tagged with, else `otherwise`. */
export function firstOf(list: readonly string[], otherwise: string | readonly string[]): CandidateIds {
  return candidates('first', list, otherwise);
}

/** Whether `ids` are candidates (made by {@link among} or {@link firstOf}). */
export function isCandidateIds(ids: unknown): ids is CandidateIds {
  return typeof ids === 'object' && ids !== null && 'candidates' in ids && 'otherwise' in ids;
}

/** Every ID `ids` may name: the fixed ones, or the candidates and the default. */
export function declaredIds(ids: CheckIds): string[] {
  if (typeof ids === 'string') return [ids];
  if (isCandidateIds(ids)) return [...new Set([...ids.candidates, ...ids.otherwise])];
  return [...ids];
}

/** The requirement tags of the scenario the running step belongs to (set by {@link judges} and {@link beginChecks}). */
let scenarioTags: readonly string[] = [];

/** The IDs `ids` names in a scenario with these tags (default: the running scenario's). */
export function resolveIds(ids: CheckIds, tags: readonly string[] = scenarioTags, known: ReadonlyMap<string, Level> = requirementLevels()): string[] {
  if (!isCandidateIds(ids)) return [...listOf(ids, 'checkFor')];
  const tagged = new Set(requirementIds(tags));
  const matched = ids.candidates.filter((id) => tagged.has(id));
  if (matched.length === 0) return [...ids.otherwise];
  if (ids.pick === 'first') return matched.slice(0, 1);
  const rankOf = (id: string): number => rank(levelOfIds([id], known));
  const lowest = Math.min(...matched.map(rankOf));
  return matched.filter((id) => rankOf(id) === lowest);
}

/** How the running scenario judges: the run's level, the scenario's level, and failures deferred to its end. */
interface CheckContext {
  runLevel: Level;
  scenarioLevel: Level;
  deferred: RequirementFailure[];
  /** IDs whose checks were not made because they are above the run's level. */
  notJudged: Set<string>;
}

let current: CheckContext | undefined;

/** Starts judging a scenario (Before hook); one scenario runs at a time per worker process. */
export function beginChecks(runLevel: Level, scenarioLevel: Level, tags: readonly string[] = []): CheckContext {
  current = { runLevel, scenarioLevel, deferred: [], notJudged: new Set() };
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

/** Whether checks of `list` are made in this run (always, outside a scenario). */
function made(list: readonly string[]): boolean {
  return current === undefined || rank(levelOfIds(list, requirementLevels())) <= rank(current.runLevel);
}

function skipped(list: readonly string[]): boolean {
  if (made(list)) return false;
  for (const id of list) current?.notJudged.add(id);
  return true;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `error` as a failure: its own when it is one, otherwise one naming `list`. */
function asFailure(list: readonly string[], error: unknown): RequirementFailure {
  return error instanceof RequirementFailure ? error : new RequirementFailure(list, messageOf(error), { cause: error });
}

/** Throws a failure of the scenario's level, or defers one above it. */
function fail(list: readonly string[], error: unknown): void {
  const failure = asFailure(list, error);
  if (current && rank(levelOfIds(failure.ids)) > rank(current.scenarioLevel)) current.deferred.push(failure);
  else throw failure;
}

/**
 * Runs `check` (plain `node:assert` inside) as the check of `ids` (candidates resolved against the running scenario).
 * Above the run's level it is not made; above the scenario's level a failure is deferred to the scenario's end, so the
 * checks of the scenario's own level still run. A failure of a check nested inside keeps the nested check's IDs.
 */
export function checkFor(ids: CheckIds, check: () => void): void {
  const list = resolveIds(ids);
  if (skipped(list)) return;
  try {
    check();
  } catch (error) {
    fail(list, error);
  }
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
 * Wraps a step body (sync or async) as the check of `ids`: an error it throws that is not already a
 * {@link RequirementFailure} becomes one naming `ids`, candidates resolved against the tags of the World the step runs
 * in (`this.tags`). A Then step follows the levels of {@link checkFor} (above the run's level its failure is not
 * counted, above the scenario's level it is deferred and the next steps run); a set-up step's failure is thrown at
 * once. The wrapper keeps `this`, the arguments and the body's `length`, which cucumber checks against the step's
 * parameters. A failure nested inside keeps its own IDs.
 */
export function judges<This, Args extends unknown[], Result>(
  ids: CheckIds,
  body: (this: This, ...args: Args) => Result,
  options: StepOptions = {},
): JudgedStep<This, Args, Result> {
  for (const id of declaredIds(ids)) if (!ID.test(id)) throw new Error(`judges: not a requirement ID: ${id}`);
  if (declaredIds(ids).length === 0) throw new Error('judges: a step names at least one requirement ID');
  const settle = (tags: readonly string[] | undefined, error: unknown): void => {
    const list = resolveIds(ids, tags ?? scenarioTags);
    if (options.setup === true) throw asFailure(list, error);
    if (!(error instanceof RequirementFailure) && skipped(list)) return;
    fail(list, error);
  };
  const wrapper = function (this: This, ...args: Args): Result {
    const tags = tagsOf(this);
    if (tags !== undefined) scenarioTags = tags;
    let result: Result;
    try {
      result = body.apply(this, args);
    } catch (error) {
      settle(tags, error);
      return undefined as Result;
    }
    if (!isThenable(result)) return result;
    return Promise.resolve(result).then(undefined, (error: unknown) => {
      settle(tags, error);
      return undefined;
    }) as Result;
  };
  Object.defineProperty(wrapper, 'length', { value: body.length });
  Object.defineProperty(wrapper, 'name', { value: body.name || 'step' });
  Object.defineProperty(wrapper, STEP_IDS, { value: ids });
  return wrapper as JudgedStep<This, Args, Result>;
}
