// Unit tests of the coverage computation on fixture requirements, scenarios and test titles.
import { describe, expect, it } from 'vitest';
import { parseExemptions, parseUnreachedParts } from './coverage-exemptions.ts';
import { computeCoverage } from './coverage-matrix.ts';
import { parseFeatureScenarios } from './feature-scenarios.ts';
import { parseRequirements } from './spec-requirements.ts';
import { titlesNamingIds } from './test-titles.ts';

const SPEC = [
  '**CR-1.1 Seen.** observable',
  '**CR-1.2 Unseen.** observable',
  '**CR-2.1 Built.** (construction) x',
  '**CR-6.5 Old.** *Deprecated 2025-03-01, replaced by CR-1.1.*',
  '**CR-11.2 Deduct.** (internal) x',
  '**CR-11.3 Add.** (internal) x',
  '**CR-13.1 Decided.** Applied in CR-1.1.',
  '**CR-13.2 Open.** Applied in CR-1.2.',
].join('\n\n');

const FEATURE = `@CR-1.1
Feature: Fixture
  Scenario: covered
    Given nothing
  @CR-9.9
  Scenario: unknown ID
    Given nothing
  @CR-6.5
  Scenario: deprecated ID
    Given nothing
  @CR-2 @cr-1.1
  Scenario: malformed tags
    Given nothing
`;

/** A test call as source text; built, so that the coverage scan of this very file finds no titles in it. */
const call = (fn: string, title: string, quote = "'"): string => `${fn}(${quote}${title}${quote}, () => {});`;
const TESTS = [
  "import { it } from 'vitest';",
  call('it', 'CR-11.2 never overdraws'),
  call('it.concurrent', 'names CR-2.1 and CR-11.9', '"'),
  call('it', 'names nothing'),
].join('\n');

describe('computeCoverage', () => {
  const coverage = computeCoverage(
    parseRequirements(SPEC),
    parseFeatureScenarios(FEATURE, 'features/fixture.feature'),
    titlesNamingIds(TESTS, 'reference/x.test.ts'),
  );
  const row = (id: string) => coverage.rows.find((candidate) => candidate.requirement.id === id);

  it('lists the scenarios tagged with each ID, feature tags included', () => {
    expect(row('CR-1.1')?.scenarios).toEqual([
      'features/fixture.feature:3 covered',
      'features/fixture.feature:6 unknown ID',
      'features/fixture.feature:9 deprecated ID',
      'features/fixture.feature:12 malformed tags',
    ]);
    expect(row('CR-1.1')?.covered).toBe(true);
  });

  it('fails on an untagged observable ID, an unknown ID, a deprecated ID and a malformed requirement tag', () => {
    expect(coverage.errors).toEqual([
      'features/fixture.feature:6 unknown ID: @CR-9.9 names no requirement of spec/protocol.md',
      'features/fixture.feature:9 deprecated ID: @CR-6.5 names a deprecated requirement; retag or remove the scenario',
      'features/fixture.feature:12 malformed tags: @CR-2 is not a requirement tag (write @CR-<section>.<n>)',
      'features/fixture.feature:12 malformed tags: @cr-1.1 is not a requirement tag (write @CR-<section>.<n>)',
      'CR-1.2 Unseen: no scenario is tagged @CR-1.2',
    ]);
  });

  it('covers internal and construction IDs by test titles, and only warns when they are missing', () => {
    expect(row('CR-11.2')).toMatchObject({ kind: 'internal', covered: true, tests: ['reference/x.test.ts: CR-11.2 never overdraws'] });
    expect(row('CR-2.1')).toMatchObject({ kind: 'construction', covered: true });
    expect(row('CR-11.3')).toMatchObject({ covered: false });
    expect(coverage.warnings).toContain('CR-11.3 Add (internal): no scenario or test title names it');
    expect(coverage.warnings).toContain('reference/x.test.ts: test "names CR-2.1 and CR-11.9" names CR-11.9, which spec/protocol.md does not define');
  });

  it('covers a decision through the requirements it is applied in, else warns', () => {
    expect(row('CR-13.1')).toMatchObject({ kind: 'decision', covered: true, note: 'through CR-1.1' });
    expect(row('CR-13.2')?.covered).toBe(false);
    expect(coverage.warnings).toContain('CR-13.2 Open (decision): CR-1.2 not covered, and it is not tagged itself');
  });

  it('never counts a deprecated ID as required', () => {
    expect(row('CR-6.5')).toMatchObject({ kind: 'deprecated', covered: false, scenarios: [] });
    expect(coverage.errors.some((error) => error.startsWith('CR-6.5'))).toBe(false);
  });
});

describe('parseFeatureScenarios', () => {
  it('gives one scenario per example row with rule and examples tags inherited', () => {
    const scenarios = parseFeatureScenarios(
      '@f\nFeature: F\n  @r\n  Rule: R\n    @CR-1.1\n    Scenario Outline: S <n>\n      Given <n>\n      @e\n      Examples:\n        | n |\n        | 1 |\n        | 2 |\n',
      'a.feature',
    );
    expect(scenarios).toEqual([
      { uri: 'a.feature', line: 11, feature: 'F', name: 'S 1', tags: ['@f', '@r', '@CR-1.1', '@e'] },
      { uri: 'a.feature', line: 12, feature: 'F', name: 'S 2', tags: ['@f', '@r', '@CR-1.1', '@e'] },
    ]);
  });

  it('throws on a Gherkin syntax error', () => {
    expect(() => parseFeatureScenarios('Feature: F\n  Scenario: S\n    Given x\n  Nonsense line\n', 'b.feature')).toThrow(/b\.feature/);
  });
});

describe('exemptions documented in features/README.md', () => {
  const README = [
    '# features/',
    '| CR-1.2 | in another table |',
    '## Requirements no scenario checks over HTTP',
    '',
    '| IDs | Why |',
    '|---|---|',
    '| CR-1.2, CR-13.2 | needs a store outage |',
    '| CR-1.1 | listed, yet tagged |',
    '## Parts of requirements no scenario reaches',
    '| CR-1.1 | the store id: one store only |',
    '## Next section',
    '| CR-11.3 | not in the section |',
  ].join('\n');

  it('reads the parts no scenario reaches from their own section, and shows them on the covered row', () => {
    expect([...parseUnreachedParts(README)]).toEqual([['CR-1.1', 'the store id: one store only']]);
    const coverage = computeCoverage(parseRequirements(SPEC), parseFeatureScenarios(FEATURE, 'f.feature'), [], { unreachedParts: parseUnreachedParts(README) });
    expect(coverage.rows.find((row) => row.requirement.id === 'CR-1.1')).toMatchObject({ covered: true, unreached: 'the store id: one store only' });
  });

  it('reads the IDs and reasons of that section only', () => {
    expect([...parseExemptions(README)]).toEqual([
      ['CR-1.2', 'needs a store outage'],
      ['CR-13.2', 'needs a store outage'],
      ['CR-1.1', 'listed, yet tagged'],
    ]);
  });

  it('turns the error of an exempt observable ID into a note, and warns when an exempt ID is tagged after all', () => {
    const coverage = computeCoverage(parseRequirements(SPEC), parseFeatureScenarios(FEATURE, 'f.feature'), [], { exemptions: parseExemptions(README) });
    expect(coverage.errors.some((error) => error.startsWith('CR-1.2'))).toBe(false);
    expect(coverage.rows.find((row) => row.requirement.id === 'CR-1.2')).toMatchObject({ covered: false, exempt: 'needs a store outage' });
    expect(coverage.warnings.some((warning) => warning.startsWith('CR-13.2'))).toBe(false);
    expect(coverage.warnings).toContain('CR-1.1 Seen: features/README.md lists it as not checked over HTTP, yet 4 scenarios are tagged with it');
  });
});
