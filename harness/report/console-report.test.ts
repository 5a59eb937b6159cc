// Unit tests of the console report's pieces: failure block, requirement verdicts, progress text.
import { describe, expect, it } from 'vitest';
import { formatFailure } from './failure-block.ts';
import { progressText } from './progress-line.ts';
import { requirementIds } from './requirement-ids.ts';
import { formatLevelVerdicts, LevelVerdicts } from './level-verdicts.ts';
import { failedScenarioIds, formatFailedRequirements, requirementCounts, RequirementVerdicts } from './requirement-verdicts.ts';
import type { Level } from './spec-requirements.ts';

describe('formatFailure', () => {
  it('shows the IDs, feature, scenario, location, failing step, message and transcript', () => {
    const text = formatFailure(
      {
        requirementIds: ['CR-7.14', 'CR-1.3'],
        feature: 'New payment',
        scenario: 'A top-up of 50001 units charges 501 cents',
        location: 'features/new-payment.feature:12',
        step: 'Then the PaymentIntent amount is 501',
        status: 'FAILED',
        message: 'expected 501\ngot 500',
        attachments: [{ mediaType: 'text/plain', text: '> GET /api/weather\n< 200\n' }],
      },
      3,
    );
    expect(text).toBe(
      [
        '✗ 3) CR-7.14 CR-1.3',
        '  New payment › A top-up of 50001 units charges 501 cents',
        '  features/new-payment.feature:12',
        '  failed at Then the PaymentIntent amount is 501',
        '    expected 501',
        '    got 500',
        '  --- text/plain attachment ---',
        '  | > GET /api/weather',
        '  | < 200',
        '',
      ].join('\n'),
    );
  });

  it('names undefined steps and scenarios without requirement tags', () => {
    const text = formatFailure(
      { requirementIds: [], feature: 'F', scenario: 'S', location: 'f:1', step: 'Given x', status: 'UNDEFINED', message: '', attachments: [] },
      1,
    );
    expect(text).toContain('(no requirement tag)');
    expect(text).toContain('undefined: Given x');
    expect(text).toContain('(no message)');
  });
});

describe('requirement verdicts', () => {
  it('takes well-formed requirement tags only, once each', () => {
    expect(requirementIds(['@fixture', '@CR-7.14', '@CR-7.14', '@CR-7', '@CR-1.3'])).toEqual(['CR-7.14', 'CR-1.3']);
  });

  it('fails the IDs a check named, counts the scenario\'s other IDs as not reached, in numeric order', () => {
    const levels = new Map<string, Level>([['CR-13.13', 'strict']]);
    const verdicts = new RequirementVerdicts((id) => levels.get(id) ?? 'wire');
    verdicts.record({ ids: ['CR-7.14', 'CR-1.3'], failedIds: ['CR-1.3'], outcome: 'failed' });
    verdicts.record({ ids: ['CR-7.14'], failedIds: [], outcome: 'passed' });
    verdicts.record({ ids: ['CR-5.5'], failedIds: ['CR-13.13'], outcome: 'failed' });
    verdicts.record({ ids: ['CR-7.3'], failedIds: [], outcome: 'inconclusive' });
    verdicts.record({ ids: ['CR-7.3', 'CR-5.5'], failedIds: ['CR-13.13'], passedIds: ['CR-5.5'], outcome: 'failed' });
    expect(verdicts.all().find((verdict) => verdict.id === 'CR-5.5')).toMatchObject({ passed: 1, notReached: 1 });
    expect(verdicts.failed().map((verdict) => verdict.id)).toEqual(['CR-1.3', 'CR-13.13']);
    expect(verdicts.all().find((verdict) => verdict.id === 'CR-7.14')).toMatchObject({ passed: 1, notReached: 1, failed: 0 });
    expect(requirementCounts(verdicts.all(), 'wire')).toBe('2 passed, 1 failed, 1 not reached');
    expect(formatFailedRequirements(verdicts.failed(), new Map([['CR-13.13', 'Insufficient-credits message']]), verdicts.all().length)).toBe(
      [
        'requirements failed: 2 of 5 judged',
        '  CR-1.3 [wire]                                   fail (1 of 1 scenarios failed)',
        '  CR-13.13 [strict] Insufficient-credits message  fail (2 of 2 scenarios failed)',
        '',
      ].join('\n'),
    );
  });
});

describe('the IDs of a failed scenario, from the checks that ran', () => {
  const wireRun = (id: string) => !id.startsWith('CR-13.');

  it('lists as not reached only the IDs none of whose checks ran, whatever their level', () => {
    // A wire failure in a pattern scenario: CR-4.12 (strict) was checked and passed before it, CR-4.13 never checked.
    expect(failedScenarioIds(['CR-4.12', 'CR-4.13', 'CR-5.2'], ['CR-5.2'], new Set(['CR-4.12', 'CR-5.2']), () => true)).toEqual({
      failedIds: ['CR-5.2'],
      passedIds: ['CR-4.12'],
      notReachedIds: ['CR-4.13'],
    });
  });

  it("gives no verdict to a failure above the run's level (a set-up step's)", () => {
    expect(failedScenarioIds(['CR-3.5'], ['CR-13.10', 'CR-3.5'], new Set(['CR-3.5']), wireRun)).toEqual({ failedIds: ['CR-3.5'], passedIds: [], notReachedIds: [] });
  });
});

/** A scenario's outcome as the level verdicts record it. */
type ScenarioOutcome = Parameters<LevelVerdicts['record']>[0];
/** A scenario of `level` ending `outcome`, failing checks of `failedLevels`. */
const scenario = (level: Level, outcome: ScenarioOutcome['outcome'], ...failedLevels: Level[]): ScenarioOutcome => ({ level, outcome, failedLevels });

describe('level verdicts', () => {
  const formatted: Array<{ title: string; scenarios: ScenarioOutcome[]; lines: string[] }> = [
    {
      title: 'claims a level only when every scenario of it and below passed; a strict failure leaves wire claimed',
      scenarios: [scenario('wire', 'passed'), scenario('wire', 'failed', 'strict'), scenario('strict', 'passed'), scenario('strict', 'not-run')],
      lines: ['wire   2/2 scenarios passed: claimed', 'strict 2/3 scenarios passed: not claimed', 'robust not declared'],
    },
    {
      title: 'counts a failure at the level of the IDs it names, whichever scenario found it: a strict scenario failing a wire check fails wire',
      scenarios: [scenario('wire', 'passed'), scenario('strict', 'failed', 'wire', 'strict'), scenario('strict', 'failed', 'strict')],
      lines: ['wire   1/2 scenarios passed: not claimed', 'strict 1/3 scenarios passed: not claimed', 'robust not declared'],
    },
    {
      title: 'says when a run has no scenario of a level, and still claims the levels above on their own scenarios',
      scenarios: [scenario('strict', 'passed')],
      lines: ['wire   no scenario of this level in this run', 'strict 1/1 scenarios passed: claimed', 'robust not declared'],
    },
  ];
  for (const { title, scenarios, lines } of formatted) {
    it(title, () => {
      const verdicts = new LevelVerdicts();
      for (const outcome of scenarios) verdicts.record(outcome);
      expect(formatLevelVerdicts(verdicts.verdicts('strict', false))).toBe(lines.join('\n'));
    });
  }

  it('does not claim a level with an inconclusive scenario, nor a level above an unclaimed one', () => {
    const verdicts = new LevelVerdicts();
    verdicts.record(scenario('wire', 'inconclusive'));
    verdicts.record(scenario('strict', 'passed'));
    const [wire, strict] = verdicts.verdicts('wire', true).concat(verdicts.verdicts('strict', true).slice(1));
    expect(wire).toMatchObject({ passed: 0, total: 0, inconclusive: 1, claimed: false });
    expect(strict).toMatchObject({ level: 'strict', claimed: false });
    expect(verdicts.verdicts('wire', true)[1]).toMatchObject({ note: 'not run (--level wire)' });
  });
});

describe('progressText', () => {
  it('counts scenarios done, failed and seconds', () => {
    expect(progressText({ done: 12, total: 120, failed: 1 }, 34_400)).toBe('[12/120 scenarios] 1 failed, 34 s');
  });
});
