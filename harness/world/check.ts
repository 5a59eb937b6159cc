// Checks that name the requirement IDs they judge: a failure blames exactly those IDs, at the level the spec gives them.
import { levelOfIds, rank, requirementLevels, type Level } from './levels.ts';

/** A failed check: its message starts with the IDs in brackets, `[CR-13.13] …`, which the report reads back. */
export class RequirementFailure extends Error {
  override name = 'RequirementFailure';
  readonly ids: readonly string[];

  constructor(ids: readonly string[], message: string) {
    super(`[${ids.join(', ')}] ${message}`);
    this.ids = ids;
  }
}

/** The IDs a failure message blames: every `[CR-…]` at the start of a line. */
export function blamedIds(message: string): string[] {
  const ids = new Set<string>();
  for (const [, list = ''] of message.matchAll(/^\[(CR-\d+\.\d+(?:, CR-\d+\.\d+)*)\]/gm)) for (const id of list.split(', ')) ids.add(id);
  return [...ids];
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
export function beginChecks(runLevel: Level, scenarioLevel: Level): CheckContext {
  current = { runLevel, scenarioLevel, deferred: [], notJudged: new Set() };
  return current;
}

/** Ends the scenario's judging (After hook) and returns its context. */
export function endChecks(): CheckContext | undefined {
  const ended = current;
  current = undefined;
  return ended;
}

/** Whether checks of `ids` are made in this run (always, outside a scenario). */
function judges(ids: string | readonly string[]): boolean {
  const list = typeof ids === 'string' ? [ids] : ids;
  return current === undefined || rank(levelOfIds(list, requirementLevels())) <= rank(current.runLevel);
}

function skipped(list: readonly string[]): boolean {
  if (judges(list)) return false;
  for (const id of list) current?.notJudged.add(id);
  return true;
}

/** Throws a failure of the scenario's level, or defers one above it. */
function fail(list: readonly string[], error: unknown): void {
  const failure = error instanceof RequirementFailure ? error : new RequirementFailure(list, error instanceof Error ? error.message : String(error));
  if (current && rank(levelOfIds(failure.ids)) > rank(current.scenarioLevel)) current.deferred.push(failure);
  else throw failure;
}

/**
 * Runs `check` (plain `node:assert` inside) as the check of `ids`. Above the run's level it is not made; above the
 * scenario's level a failure is deferred to the scenario's end, so the checks of the scenario's own level still run.
 * A failure of a check nested inside keeps the nested check's IDs; with no IDs, a failure blames the scenario's.
 */
export function checkFor(ids: string | readonly string[], check: () => void): void {
  const list = typeof ids === 'string' ? [ids] : ids;
  if (list.length === 0) {
    check();
    return;
  }
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
