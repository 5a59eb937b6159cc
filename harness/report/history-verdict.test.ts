// Unit tests of the generated histories in a robust run's verdicts: the summary merge, the console's closing block and the JUnit test case.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatClosingBlock } from './closing-block.ts';
import { formatHistoryVerdict, withHistoryVerdict } from './history-verdict.ts';
import { addHistoryTestCase, HISTORY_CLASSNAME } from './junit-history.ts';
import type { HistoryVerdict, RunSummary } from './run-summary.ts';
import { readRequirements } from './spec-requirements.ts';

const requirements = readRequirements();

/** The passing fixture as a robust run: wire, strict and robust claimed. */
function robustRun(): RunSummary {
  const summary = JSON.parse(readFileSync(new URL('./fixtures/passing-summary.json', import.meta.url), 'utf8')) as RunSummary;
  return {
    ...summary,
    runLevel: 'robust',
    levels: [
      { level: 'wire', passed: 3, total: 3, inconclusive: 0, claimed: true },
      { level: 'strict', passed: 4, total: 4, inconclusive: 0, claimed: true },
      { level: 'robust', passed: 4, total: 4, inconclusive: 0, claimed: true },
    ],
  };
}

/** A passed and a failed history verdict (the failure as the request-id-unscoped mutant's). */
const { passed: PASSED, failed: FAILED } = JSON.parse(readFileSync(new URL('./fixtures/history-verdicts.json', import.meta.url), 'utf8')) as Record<'passed' | 'failed', HistoryVerdict>;

describe('withHistoryVerdict', () => {
  it('fails the requirement a history is charged to, once, and every judged level holding it, naming exactly that ID', () => {
    const merged = withHistoryVerdict(robustRun(), FAILED, requirements);
    expect(merged.history).toBe(FAILED);
    expect(merged.requirements.find((verdict) => verdict.id === 'CR-6.9')).toEqual({
      id: 'CR-6.9', level: 'strict', title: 'Request ids', passed: 0, failed: 1, notReached: 0, inconclusive: 0, historyFailed: true,
    });
    expect(merged.levels.map(({ level, claimed, historyFailed }) => ({ level, claimed, historyFailed }))).toEqual([
      { level: 'wire', claimed: true, historyFailed: undefined },
      { level: 'strict', claimed: false, historyFailed: ['CR-6.9'] },
      { level: 'robust', claimed: false, historyFailed: ['CR-6.9'] },
    ]);
    expect(merged.passed).toBe(4);
  });

  it('adds the failure to a requirement the scenarios judged, and a wire ID fails every level', () => {
    const wire: HistoryVerdict = { ...FAILED, failure: { ...(FAILED.failure as NonNullable<HistoryVerdict['failure']>), ids: ['CR-7.14'] } };
    const merged = withHistoryVerdict(robustRun(), wire, requirements);
    expect(merged.requirements.find((verdict) => verdict.id === 'CR-7.14')).toMatchObject({ passed: 2, failed: 1, historyFailed: true });
    expect(merged.levels.every((verdict) => !verdict.claimed && verdict.historyFailed?.join() === 'CR-7.14')).toBe(true);
  });

  it('changes no verdict when the histories passed or could not run', () => {
    const notRun: HistoryVerdict = { outcome: 'not-run', seed: 1, seconds: 10, histories: 0, durationMs: 0, reason: 'the kit could not run a history: refused' };
    for (const history of [PASSED, notRun]) {
      const merged = withHistoryVerdict(robustRun(), history, requirements);
      expect({ ...merged, history: undefined }).toEqual({ ...robustRun(), history: undefined });
      expect(merged.history).toBe(history);
    }
  });
});

describe('the console closing block', () => {
  it('prints the passed histories beside the levels, and the last line is the scenarios\' count', () => {
    const text = formatClosingBlock({ ...robustRun(), history: PASSED }, ['reports/conformance.html']);
    expect(text).toContain('levels:\n  wire   3/3 scenarios passed: claimed\n  strict 4/4 scenarios passed: claimed\n  robust 4/4 scenarios passed: claimed\n  histories: 37 passed in 10.2 s (seed 42, a budget of 10 s)\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('4 passed, 0 failed');
  });

  it('names the failed requirement, the levels it fails and the histories on the last line; it offers no --tags re-run for it', () => {
    const text = formatClosingBlock(withHistoryVerdict(robustRun(), FAILED, requirements), []);
    expect(text).toContain('requirements failed: 1 of 7 judged\n  CR-6.9 [strict] Request ids  fail (a generated history)\n');
    expect(text).not.toContain('re-run them with');
    expect(text).toContain('  strict 4/4 scenarios passed, generated histories failed CR-6.9: not claimed\n');
    expect(text).toContain('  histories: failed CR-6.9 after 4 histories in 2.2 s (seed 36101): the shrunk counterexample is above\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('4 passed, 0 failed; histories failed CR-6.9');
  });

  it('says why the histories did not run, without failing anything', () => {
    const history: HistoryVerdict = { outcome: 'not-run', seed: 5, seconds: 10, histories: 3, durationMs: 40, reason: 'no paid call of the 3 histories was served', notes: ['storeFaults not declared: no store faults were armed'] };
    expect(formatHistoryVerdict(history)).toBe('histories: not run: no paid call of the 3 histories was served (not failed)');
    const text = formatClosingBlock({ ...robustRun(), history }, []);
    expect(text).toContain('  histories: not run: no paid call of the 3 histories was served (not failed)\n    storeFaults not declared: no store faults were armed\n4 passed, 0 failed\n');
  });

  it('prints the same block as before for a run without histories', () => {
    const text = formatClosingBlock({ ...robustRun(), notes: [{ text: 'not run: capability not declared: gateway', count: 2 }], skipped: 1 }, ['a.xml']);
    expect(text).toBe([
      '',
      'requirements:',
      '  wire   6 passed, 0 failed',
      '2 scenarios: not run: capability not declared: gateway',
      '1 skipped',
      'reports: a.xml',
      'levels:',
      '  wire   3/3 scenarios passed: claimed',
      '  strict 4/4 scenarios passed: claimed',
      '  robust 4/4 scenarios passed: claimed',
      '4 passed, 0 failed',
      '',
    ].join('\n'));
  });
});

describe('addHistoryTestCase', () => {
  const xml = [
    '<?xml version="1.0"?>',
    '<testsuite name="credit402 conformance" time="40.500" tests="2" skipped="1" failures="0" errors="0">',
    '  <testcase classname="F" name="a" time="0.1"/>',
    '  <testcase classname="F" name="b" time="0">',
    '    <skipped message="not run: x"/>',
    '  </testcase>',
    '</testsuite>',
  ].join('\n');

  it('adds a passed test case and counts it and its time', () => {
    const out = addHistoryTestCase(xml, PASSED);
    expect(out).toContain('<testsuite name="credit402 conformance" time="50.740" tests="3" skipped="1" failures="0" errors="0">');
    expect(out).toMatch(new RegExp(`<testcase classname="${HISTORY_CLASSNAME.replace(/[()]/g, '\\$&')}" name="37 generated histories, seed 42, a budget of 10 s" time="10.240"/>\n</testsuite>$`));
  });

  it('adds a failed test case with the IDs in its message and the counterexample as its text', () => {
    const out = addHistoryTestCase(xml, FAILED);
    expect(out).toContain('tests="3" skipped="1" failures="1"');
    expect(out).toContain('<failure type="history" message="[CR-6.9] op 1 (card 1 spends on GET /api/throws rid 2): served free');
    expect(out).toContain('<![CDATA[✗ history failed: CR-6.9');
  });

  it('adds a not-run test case as skipped with its reason; no verdict, no change', () => {
    const notRun: HistoryVerdict = { outcome: 'not-run', seed: 1, seconds: 10, histories: 0, durationMs: 0, reason: 'the kit could not run a history: <refused>' };
    const out = addHistoryTestCase(xml, notRun);
    expect(out).toContain('tests="3" skipped="2" failures="0"');
    expect(out).toContain('<skipped message="not run: the kit could not run a history: &#60;refused&#62;"/>');
    expect(addHistoryTestCase(xml, undefined)).toBe(xml);
  });
});
