// Unit tests of the kit's HTML report on fixture summaries of a failing and a passing run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderHtmlReport } from './html-report.ts';
import type { RunSummary } from './run-summary.ts';
import { readRequirements } from './spec-requirements.ts';

const fixture = (name: string): RunSummary => JSON.parse(readFileSync(new URL(`./fixtures/${name}-summary.json`, import.meta.url), 'utf8')) as RunSummary;
const requirements = readRequirements();

/** The element that opens at `id="…"`, up to its first closing `</tag>` (enough for rows and sections without nesting). */
function element(html: string, id: string, tag: string): string {
  const start = html.lastIndexOf(`<${tag}`, html.indexOf(`id="${id}"`));
  expect(start, `no <${tag} id="${id}">`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf(`</${tag}>`, start) + tag.length + 3);
}

describe('renderHtmlReport: a failing run', () => {
  const html = renderHtmlReport(fixture('failing'), requirements);

  it('is one self-contained page: inline style and script, nothing loaded from elsewhere', () => {
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script[^>]+src=|<link\b|@import|url\(|src="http|href="https?:/);
  });

  it('shows the levels block first: N/M scenarios passed and claimed, not claimed or not declared', () => {
    const levels = element(html, 'levels', 'section');
    expect(html.indexOf('id="levels"')).toBeLessThan(html.indexOf('id="failed-requirements"'));
    expect(levels).toMatch(/wire<\/h3>[\s\S]*1\/3 <small>scenarios passed<\/small>[\s\S]*not claimed/);
    expect(levels).toMatch(/strict<\/h3>[\s\S]*2\/4 [\s\S]*not claimed[\s\S]*1 inconclusive/);
    expect(levels).toMatch(/robust<\/h3>[\s\S]*not declared/);
  });

  it('says what stripe402 is, which the wire level and stripe402Version name', () => {
    expect(element(html, 'levels', 'section')).toMatch(/wire<\/h3>\n<p class="what">what the stripe402 source states[\s\S]*stripe402 is the deployed pay-per-request system[^<]*the wire level follows its v1 source, and stripe402Version is the version of the protocol it speaks\./);
  });

  it('lists each failed requirement with its level, title and the failures that failed it', () => {
    const table = element(html, 'failed-requirements', 'section');
    expect(table).toContain('Failed requirements (1)');
    expect(table).toMatch(/CR-7\.14<\/a><\/td><td><span class="lvl">wire<\/span><\/td><td class="title">Charged amount<\/td><td class="num">2 of 2 failed<\/td>/);
    expect(table).toContain('href="#failure-1"');
    expect(table).toContain('href="#failure-2"');
  });

  it('shows each failure open (no click): failed IDs with levels, not-reached IDs, step, message and the transcript', () => {
    const failure = element(html, 'failure-1', 'details');
    expect(failure).toMatch(/^<details class="failure" open id="failure-1"/);
    expect(failure).toMatch(/failed: <a class="id failed" href="#req-CR-7.14">CR-7.14<\/a> <span class="lvl">wire<\/span> · not reached: <a class="id not-reached" href="#req-CR-1.3">CR-1.3<\/a>/);
    expect(failure).toContain('Then the PaymentIntent has amount 501 and currency &#34;usd&#34;');
    expect(failure).toContain('[CR-7.14] the PaymentIntent amount: expected 501, got 500');
    expect(failure).toMatch(/<pre class="transcript">Scenario: a top-up of 50001 units[\s\S]*decoded payment-response:[\s\S]*Processor journal of this scenario/);
  });

  it('groups inconclusive and not-run scenarios by reason, with counts; inconclusive groups open, not-run groups closed', () => {
    const section = element(html, 'not-judged', 'section');
    expect(section).toMatch(/<details class="group" data-group open>\s*<summary><span class="count">1<\/span> the injected fault never fired/);
    expect(section).toMatch(/<details class="group" data-group>\s*<summary><span class="count">2<\/span> robust level: the target does not declare the robustness profile<\/summary>/);
    expect(section).toMatch(/<span class="count">1<\/span> capability not declared: storeFaults/);
    expect(section).toMatch(/<span class="count">1<\/span> handler runs not checked/);
  });

  it('has a matrix row for every ID of the spec that servers meet (not the client ones): passed, failed, not reached, inconclusive, or not run when the run did not judge it', () => {
    for (const requirement of requirements) expect(html.includes(`<tr id="req-${requirement.id}"`)).toBe(!requirement.client);
    const status = (id: string): string => /data-status="([^"]+)"/.exec(element(html, `req-${id}`, 'tr'))?.[1] ?? '';
    expect([status('CR-7.14'), status('CR-3.1'), status('CR-1.3'), status('CR-7.21'), status('CR-1.1')]).toEqual(['failed', 'passed', 'not-reached', 'inconclusive', 'not-run']);
    expect(element(html, 'req-CR-7.14', 'tr')).toContain('Charged amount');
  });

  it('keeps the filters hidden until the script shows them, and gives every filtered entry its level, feature and status', () => {
    expect(html).toContain('<form id="filters" class="filters" hidden>');
    expect(html).toMatch(/<script>[\s\S]*getElementById\('filters'\)/);
    expect(html).toContain('<option value="features/07-new-payment.feature">New-payment path (spec §7)</option>');
    expect(element(html, 'failure-2', 'details')).toMatch(/data-status="failed" data-level="wire" data-features="features\/07-new-payment.feature"/);
  });

  it('escapes every text from the run', () => {
    const summary = fixture('failing');
    const evil = '<script>alert("x")</script>&';
    summary.target = evil;
    for (const scenario of summary.scenarios) {
      Object.assign(scenario, { name: evil, feature: evil, reason: scenario.reason && evil, message: scenario.message && evil });
      for (const attachment of scenario.attachments) attachment.text = evil;
    }
    const escaped = renderHtmlReport(summary, requirements);
    expect(escaped).not.toContain('<script>alert');
    expect(escaped).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;');
  });
});

describe('renderHtmlReport: a passing run', () => {
  const html = renderHtmlReport(fixture('passing'), requirements);

  it('says no scenario failed and shows the claimed levels', () => {
    expect(html).toContain('<p class="verdict passed">no scenario failed</p>');
    expect(element(html, 'levels', 'section')).toMatch(/wire<\/h3>[\s\S]*3\/3 [\s\S]*claimed[\s\S]*strict<\/h3>[\s\S]*4\/4 [\s\S]*claimed/);
    expect(html).toContain('No scenario failed and no requirement failed.');
    expect(html).toContain('No scenario was inconclusive or not run.');
    expect(html).not.toContain('class="failure"');
  });

  it('renders a summary without scenarios (an older console report) from its levels and requirements', () => {
    const { scenarios: _, ...older } = fixture('passing');
    const page = renderHtmlReport(older as RunSummary, requirements);
    expect(page).toContain('id="levels"');
    expect(/data-status="([^"]+)"/.exec(element(page, 'req-CR-7.14', 'tr'))?.[1]).toBe('passed');
  });
});
