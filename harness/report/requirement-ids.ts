// Requirement IDs (`CR-7.14`) and the scenario tags that name them (`@CR-7.14`).

/** A well-formed requirement tag; group 1 is the ID. */
export const REQUIREMENT_TAG = /^@(CR-\d+\.\d+)$/;

/** Orders IDs numerically (CR-2.9 before CR-2.10). */
export function compareIds(a: string, b: string): number {
  const [as = 0, an = 0] = a.slice(3).split('.').map(Number);
  const [bs = 0, bn = 0] = b.slice(3).split('.').map(Number);
  return as - bs || an - bn;
}

/** The requirement IDs among a scenario's tags (`@CR-7.14` → `CR-7.14`), in tag order, without duplicates. */
export function requirementIds(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => REQUIREMENT_TAG.exec(tag)?.[1]).filter((id): id is string => id !== undefined))];
}
