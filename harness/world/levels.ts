// Conformance levels at run time: each requirement's level from spec/protocol.md, a scenario's level from its tags.
import { LEVELS, readRequirements, type Level } from '../report/spec-requirements.ts';
import { requirementIds } from '../report/requirement-ids.ts';

export type { Level };

let levels: Map<string, Level> | undefined;

/** The level of every requirement ID of the spec (read once per process). */
export function requirementLevels(): ReadonlyMap<string, Level> {
  levels ??= new Map(readRequirements().map((requirement) => [requirement.id, requirement.level]));
  return levels;
}

/** Whether `value` names a level. */
export function isLevel(value: unknown): value is Level {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** The rank of a level: wire 0, strict 1, robust 2. */
export function rank(level: Level): number {
  return LEVELS.indexOf(level);
}

/** The highest of some levels (wire for none). */
function highest(list: Iterable<Level>): Level {
  let top: Level = 'wire';
  for (const level of list) if (rank(level) > rank(top)) top = level;
  return top;
}

/** The level of a check naming `ids`: the highest of their levels (an ID the spec does not know counts as strict). */
export function levelOfIds(ids: readonly string[], known: ReadonlyMap<string, Level> = requirementLevels()): Level {
  return highest(ids.map((id) => known.get(id) ?? 'strict'));
}

/**
 * A scenario's level (spec §0): robust when tagged `@robustness`, otherwise the lowest level among its requirement IDs
 * (strict when it names none).
 */
export function scenarioLevel(tags: readonly string[], known: ReadonlyMap<string, Level> = requirementLevels()): Level {
  if (tags.includes('@robustness')) return 'robust';
  const ids = requirementIds(tags);
  if (ids.length === 0) return 'strict';
  return LEVELS[Math.min(...ids.map((id) => rank(known.get(id) ?? 'strict')))] ?? 'strict';
}
