// Unit tests of the JUnit post-processing on XML as cucumber's junit formatter writes it.
import { describe, expect, it } from 'vitest';
import { addSkipReasons } from './junit-reasons.ts';
import type { ScenarioRecord } from './run-summary.ts';

/** The shape @cucumber/junit-xml-formatter writes (xmlbuilder, pretty): `<` escaped in attributes, `>` not. */
const JUNIT = `<?xml version="1.0"?>
<testsuite name="credit402 conformance" time="1.5" tests="6" skipped="2" failures="1" errors="0" timestamp="2026-11-27T16:26:16Z">
  <testcase classname="Headers (spec §3)" name="the header name is read case-insensitively (&lt;name>) - #1.1: the header name is read case-insensitively (Payment)" time="0.02">
    <system-out><![CDATA[When I pay....passed]]></system-out>
  </testcase>
  <testcase classname="Robustness (spec §14)" name="two first payments are serialised" time="0.001">
    <skipped/>
    <system-out><![CDATA[Given a new card....skipped
<skipped/> in a step's text is not an element]]></system-out>
  </testcase>
  <testcase classname="Robustness (spec §14)" name="a price of &lt;price> - #1.1" time="0.01">
    <system-out><![CDATA[Given a price....passed]]></system-out>
  </testcase>
  <testcase classname="Robustness (spec §14)" name="a price of &lt;price> - #1.2" time="0">
    <skipped/>
  </testcase>
  <testcase classname="Processor faults" name="a timeout is answered 502" time="0.3">
    <failure type="AssertionError" message="expected 502"><![CDATA[AssertionError: expected 502, got 200]]></failure>
    <system-out><![CDATA[Then the answer is 502....failed]]></system-out>
  </testcase>
  <testcase classname="Processor faults" name="a decline is answered 402" time="0.2">
    <system-out><![CDATA[Then the answer is 402....passed]]></system-out>
  </testcase>
</testsuite>
`;

function scenario(feature: string, name: string, line: number, outcome: ScenarioRecord['outcome'], reason?: string): ScenarioRecord {
  const uri = `features/${feature.slice(0, 5).toLowerCase()}.feature`;
  return { feature, featureUri: uri, name, location: `${uri}:${line}`, level: 'strict', outcome, ids: [], failedIds: [], passedIds: [], notReachedIds: [], notices: [], attachments: [], ...(reason ? { reason } : {}) };
}

const SCENARIOS: ScenarioRecord[] = [
  scenario('Headers (spec §3)', 'the header name is read case-insensitively (Payment)', 12, 'passed'),
  scenario('Robustness (spec §14)', 'a price of <price>', 31, 'not-run', 'robust level: the target does not declare the "robustness" profile & more'),
  scenario('Robustness (spec §14)', 'a price of <price>', 30, 'passed'),
  scenario('Robustness (spec §14)', 'two first payments are serialised', 10, 'not-run', 'robust level: the target does not declare the robustness profile'),
  scenario('Processor faults', 'a timeout is answered 502', 5, 'inconclusive', 'the injected fault never fired (timeout × 1)'),
  scenario('Processor faults', 'a decline is answered 402', 9, 'inconclusive', 'the injected store fault never fired'),
];

const testCase = (xml: string, name: string): string => {
  const start = xml.indexOf(`name="${name}"`);
  return xml.slice(xml.lastIndexOf('<testcase', start), xml.indexOf('</testcase>', start));
};

describe('addSkipReasons', () => {
  const xml = addSkipReasons(JUNIT, SCENARIOS);

  it('puts a not-run reason into the skipped element of its test case, escaped', () => {
    expect(testCase(xml, 'two first payments are serialised')).toContain('<skipped message="not run: robust level: the target does not declare the robustness profile"/>');
  });

  it('matches outline rows without their own name by feature, name and file order', () => {
    expect(testCase(xml, 'a price of &lt;price> - #1.1')).not.toContain('<skipped');
    expect(testCase(xml, 'a price of &lt;price> - #1.2')).toContain('<skipped message="not run: robust level: the target does not declare the &#34;robustness&#34; profile &#38; more"/>');
  });

  it('marks an inconclusive scenario skipped with its reason: a passed one gets a skipped element, a failed one its failure turned into one', () => {
    expect(testCase(xml, 'a decline is answered 402')).toMatch(/time="0.2">\n {4}<skipped message="inconclusive: the injected store fault never fired"\/>\n {4}<system-out>/);
    expect(testCase(xml, 'a timeout is answered 502')).toContain('<skipped message="inconclusive: the injected fault never fired (timeout × 1)"><![CDATA[AssertionError: expected 502, got 200]]></skipped>');
    expect(xml).not.toContain('<failure');
  });

  it('recounts the suite: skipped and failures as the kit counts them', () => {
    expect(xml).toMatch(/<testsuite name="credit402 conformance" time="1.5" tests="6" skipped="4" failures="0" errors="0"/);
  });

  it('leaves CDATA, passed test cases and unknown scenarios alone', () => {
    expect(xml).toContain("<skipped/> in a step's text is not an element");
    expect(testCase(xml, 'the header name is read case-insensitively (&lt;name>) - #1.1: the header name is read case-insensitively (Payment)')).not.toContain('<skipped');
    expect(addSkipReasons(JUNIT, [scenario('Elsewhere', 'two first payments are serialised', 1, 'not-run', 'x')])).toBe(JUNIT);
    expect(addSkipReasons(JUNIT, [])).toBe(JUNIT);
  });

  it('opens a self-closing test case to give it a skipped element', () => {
    const bare = '<testsuite name="s" tests="1" skipped="0" failures="0">\n  <testcase classname="F" name="n &amp; m" time="0"/>\n</testsuite>';
    const result = addSkipReasons(bare, [scenario('F', 'n & m', 1, 'inconclusive', 'why')]);
    expect(result).toBe('<testsuite name="s" tests="1" skipped="1" failures="0">\n  <testcase classname="F" name="n &amp; m" time="0">\n    <skipped message="inconclusive: why"/>\n  </testcase>\n</testsuite>');
  });
});
