// Unit tests of the console report's pieces: failure block, requirement verdicts, progress text.
import { describe, expect, it } from 'vitest';
import { formatFailure } from './failure-block.ts';
import { progressText } from './progress-line.ts';
import { requirementIds } from './requirement-ids.ts';
import { formatFailedRequirements, RequirementVerdicts } from './requirement-verdicts.ts';

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

  it('fails an ID when any of its scenarios failed, in numeric order', () => {
    const verdicts = new RequirementVerdicts();
    verdicts.record(['CR-7.14', 'CR-1.3'], false);
    verdicts.record(['CR-7.14'], true);
    verdicts.record(['CR-7.3'], true);
    verdicts.record(['CR-10.3'], false);
    expect(verdicts.failed()).toEqual([
      { id: 'CR-1.3', scenarios: 1, failed: 1 },
      { id: 'CR-7.14', scenarios: 2, failed: 1 },
      { id: 'CR-10.3', scenarios: 1, failed: 1 },
    ]);
    expect(formatFailedRequirements(verdicts.failed(), new Map([['CR-7.14', 'Charged amount']]), verdicts.all().length)).toBe(
      [
        'requirements failed: 3 of 4 checked',
        '  CR-1.3                  fail (1 of 1 scenarios failed)',
        '  CR-7.14 Charged amount  fail (1 of 2 scenarios failed)',
        '  CR-10.3                 fail (1 of 1 scenarios failed)',
        '',
      ].join('\n'),
    );
  });
});

describe('progressText', () => {
  it('counts scenarios done, failed and seconds', () => {
    expect(progressText({ done: 12, total: 120, failed: 1 }, 34_400)).toBe('[12/120 scenarios] 1 failed, 34 s');
  });
});
