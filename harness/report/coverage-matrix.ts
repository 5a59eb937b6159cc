// Requirement coverage: which scenarios and tests check each requirement ID, and what is missing or mis-tagged.
import type { FeatureScenario } from './feature-scenarios.ts';
import { REQUIREMENT_TAG } from './requirement-ids.ts';
import { DECISIONS_SECTION, type Requirement } from './spec-requirements.ts';
import type { TestTitle } from './test-titles.ts';

/** How a requirement is checked (spec/README.md). */
export type RequirementKind = 'observable' | 'construction' | 'internal' | 'decision' | 'deprecated';

/** One row of the matrix. */
interface CoverageRow {
  requirement: Requirement;
  kind: RequirementKind;
  /** `uri:line name` of each scenario tagged with the ID. */
  scenarios: string[];
  /** `file: title` of each test whose title names the ID. */
  tests: string[];
  covered: boolean;
  /** How it is covered, or why it counts as covered. */
  note?: string;
  /** Why the suite cannot check it over HTTP (features/README.md), when documented. */
  exempt?: string;
  /** What part of it no scenario reaches, black-box (features/README.md), when documented. */
  unreached?: string;
}

/** What features/README.md documents of the requirements the suite cannot check over HTTP, whole or in part. */
export interface Unchecked {
  /** ID → why no scenario checks it. */
  exemptions?: ReadonlyMap<string, string>;
  /** ID → the part of it that no scenario reaches. */
  unreachedParts?: ReadonlyMap<string, string>;
}

/** The matrix with its problems: errors fail the check, warnings do not. */
export interface Coverage {
  rows: CoverageRow[];
  errors: string[];
  warnings: string[];
}

/** Any tag meant as a requirement tag, well-formed or not. */
const LOOKS_LIKE_REQUIREMENT = /^@cr-/i;

function kindOf(requirement: Requirement): RequirementKind {
  if (requirement.deprecated) return 'deprecated';
  if (requirement.internal) return 'internal';
  if (requirement.construction) return 'construction';
  if (requirement.section === DECISIONS_SECTION) return 'decision';
  return 'observable';
}

function lintTags(scenarios: readonly FeatureScenario[], byId: ReadonlyMap<string, Requirement>, errors: Set<string>): Map<string, string[]> {
  const tagged = new Map<string, string[]>();
  for (const scenario of scenarios) {
    const label = `${scenario.uri}:${scenario.line} ${scenario.name}`;
    for (const tag of new Set(scenario.tags.filter((name) => LOOKS_LIKE_REQUIREMENT.test(name)))) {
      const id = REQUIREMENT_TAG.exec(tag)?.[1];
      const requirement = id === undefined ? undefined : byId.get(id);
      if (id === undefined) errors.add(`${label}: ${tag} is not a requirement tag (write @CR-<section>.<n>)`);
      else if (requirement === undefined) errors.add(`${label}: ${tag} names no requirement of spec/protocol.md`);
      else if (requirement.deprecated) errors.add(`${label}: ${tag} names a deprecated requirement; retag or remove the scenario`);
      else tagged.set(id, [...(tagged.get(id) ?? []), label]);
    }
  }
  return tagged;
}

function testsById(titles: readonly TestTitle[], byId: ReadonlyMap<string, Requirement>, warnings: string[]): Map<string, string[]> {
  const tests = new Map<string, string[]>();
  for (const { file, title, ids } of titles) {
    for (const id of ids) {
      if (!byId.has(id)) warnings.push(`${file}: test "${title}" names ${id}, which spec/protocol.md does not define`);
      else tests.set(id, [...(tests.get(id) ?? []), `${file}: ${title}`]);
    }
  }
  return tests;
}

/** Adds the errors and warnings of one row; a decision whose applied requirements are all covered becomes covered. */
function judge(row: CoverageRow, rowsById: ReadonlyMap<string, CoverageRow>, errors: Set<string>, warnings: string[]): void {
  const { id, title, appliedIn } = row.requirement;
  if (row.exempt !== undefined && row.scenarios.length > 0) {
    warnings.push(`${id} ${title}: features/README.md lists it as not checked over HTTP, yet ${row.scenarios.length} scenarios are tagged with it`);
  }
  if (row.covered) return;
  if (row.kind === 'decision') {
    const applied = appliedIn.map((other) => rowsById.get(other)).filter((other) => other !== undefined && other.kind !== 'deprecated');
    const open = applied.filter((other) => !other?.covered).map((other) => other?.requirement.id);
    if (applied.length > 0 && open.length === 0) {
      row.covered = true;
      row.note = `through ${appliedIn.join(', ')}`;
      return;
    }
    if (row.exempt === undefined) {
      warnings.push(`${id} ${title} (decision): ${applied.length === 0 ? 'applied in no requirement and' : `${open.join(', ')} not covered, and it is`} not tagged itself`);
    }
  } else if (row.exempt !== undefined) {
    return;
  } else if (row.kind === 'observable') {
    errors.add(`${id} ${title}: no scenario is tagged @${id}`);
  } else if (row.kind === 'internal' || row.kind === 'construction') {
    warnings.push(`${id} ${title} (${row.kind}): no scenario or test title names it`);
  }
}

/**
 * Computes the coverage of `requirements` by tagged scenarios and by test titles. `exemptions` (ID → reason) are
 * requirements the suite documents as not checkable over HTTP: not an error when untagged, a warning when tagged;
 * `unreachedParts` (ID → part) are parts of checked requirements that no scenario reaches, shown on their rows.
 */
export function computeCoverage(
  requirements: readonly Requirement[],
  scenarios: readonly FeatureScenario[],
  titles: readonly TestTitle[],
  { exemptions = new Map(), unreachedParts = new Map() }: Unchecked = {},
): Coverage {
  const byId = new Map(requirements.map((requirement) => [requirement.id, requirement]));
  const errors = new Set<string>();
  const warnings: string[] = [];
  const tagged = lintTags(scenarios, byId, errors);
  const tests = testsById(titles, byId, warnings);
  for (const scenario of scenarios) {
    if (!scenario.tags.some((tag) => REQUIREMENT_TAG.test(tag))) warnings.push(`${scenario.uri}:${scenario.line} ${scenario.name}: no requirement tag`);
  }
  for (const id of exemptions.keys()) {
    if (!byId.has(id)) warnings.push(`features/README.md lists ${id} as not checked over HTTP, but spec/protocol.md does not define it`);
  }
  for (const id of unreachedParts.keys()) {
    if (!byId.has(id)) warnings.push(`features/README.md lists a part of ${id} as not reached, but spec/protocol.md does not define it`);
  }
  const rows = requirements.map((requirement): CoverageRow => {
    const kind = kindOf(requirement);
    const row = { requirement, kind, scenarios: tagged.get(requirement.id) ?? [], tests: tests.get(requirement.id) ?? [] };
    const exempt = exemptions.get(requirement.id);
    return {
      ...row,
      covered: row.scenarios.length > 0 || ((kind === 'internal' || kind === 'construction') && row.tests.length > 0),
      exempt,
      unreached: unreachedParts.get(requirement.id),
    };
  });
  const rowsById = new Map(rows.map((row) => [row.requirement.id, row]));
  for (const row of rows) judge(row, rowsById, errors, warnings);
  return { rows, errors: [...errors], warnings };
}
