// `credit402-conformance coverage [--tests DIR]…`: the requirement × scenario matrix; fails when an observable ID is unchecked or a tag is wrong.
// Observable IDs that features/README.md documents as not checkable over HTTP are listed with the reason, not failed.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseExemptions, parseUnreachedParts } from './report/coverage-exemptions.ts';
import { computeCoverage, type Coverage, type RequirementKind, type Unchecked } from './report/coverage-matrix.ts';
import { readFeatureScenarios } from './report/feature-scenarios.ts';
import { LEVELS, readRequirements, SPEC_PATH } from './report/spec-requirements.ts';
import { readTestTitles } from './report/test-titles.ts';
import { ROOT } from './runner/paths.ts';

const KINDS: readonly RequirementKind[] = ['observable', 'construction', 'internal', 'decision', 'deprecated'];

/** The printed report: matrix, counts, warnings and errors. */
function formatCoverage(coverage: Coverage, scenarioCount: number): string {
  const lines: string[] = [];
  for (const row of coverage.rows) {
    const { id, title, level } = row.requirement;
    const mark = row.kind === 'deprecated' ? '-' : row.covered ? '✓' : row.exempt !== undefined ? '~' : row.kind === 'observable' ? '✗' : '?';
    const note = row.note ?? (row.exempt !== undefined && !row.covered ? `not checked over HTTP: ${row.exempt}` : undefined);
    const part = row.unreached === undefined ? '' : ` (no scenario reaches: ${row.unreached})`;
    lines.push(`${mark} ${id} [${level}] ${title} [${row.kind}]${note ? ` ${note}` : ''}${part}`);
    for (const scenario of row.scenarios) lines.push(`      scenario ${scenario}`);
    for (const test of row.tests) lines.push(`      test     ${test}`);
  }
  lines.push('', 'counts:');
  for (const kind of KINDS) {
    const rows = coverage.rows.filter((row) => row.kind === kind);
    if (rows.length === 0) continue;
    const covered = rows.filter((row) => row.covered).length;
    const exempt = rows.filter((row) => !row.covered && row.exempt !== undefined).length;
    const detail = kind === 'deprecated' ? `${rows.length}` : `${covered}/${rows.length} covered${exempt ? `, ${exempt} not checkable over HTTP (features/README.md)` : ''}`;
    lines.push(`  ${kind.padEnd(13)} ${detail}`);
  }
  for (const level of LEVELS) {
    const rows = coverage.rows.filter((row) => row.requirement.level === level && row.kind !== 'deprecated');
    lines.push(`  ${`${level} level`.padEnd(13)} ${rows.filter((row) => row.covered).length}/${rows.length} covered`);
  }
  lines.push(`  scenarios     ${scenarioCount}`);
  if (coverage.warnings.length > 0) lines.push('', `warnings (${coverage.warnings.length}):`, ...coverage.warnings.map((warning) => `  ${warning}`));
  if (coverage.errors.length > 0) lines.push('', `errors (${coverage.errors.length}):`, ...coverage.errors.map((error) => `  ${error}`));
  lines.push('', coverage.errors.length > 0 ? `coverage check failed: ${coverage.errors.length} errors` : 'coverage check passed');
  return lines.join('\n');
}

/** What features/README.md (at `path`) documents as not checked over HTTP, whole or in part; nothing when unreadable. */
function readUnchecked(path: string): Unchecked {
  let markdown: string;
  try {
    markdown = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  return { exemptions: parseExemptions(markdown), unreachedParts: parseUnreachedParts(markdown) };
}

/**
 * Prints the matrix; `testDirs` (relative to the current directory) are searched for vitest titles naming requirement
 * IDs, which cover the internal and construction requirements. Resolves to the exit code (1 on a coverage error).
 */
export function runCoverage(testDirs: readonly string[]): number {
  const requirements = readRequirements(SPEC_PATH);
  const scenarios = readFeatureScenarios(join(ROOT, 'features'), ROOT);
  const titles = readTestTitles(testDirs.map((dir) => resolve(dir)), process.cwd());
  const coverage = computeCoverage(requirements, scenarios, titles, readUnchecked(join(ROOT, 'features/README.md')));
  console.log(formatCoverage(coverage, scenarios.length));
  return coverage.errors.length > 0 ? 1 : 0;
}
