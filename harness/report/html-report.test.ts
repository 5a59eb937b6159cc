// Unit tests of the kit's HTML report on fixture summaries of a failing and a passing run, and of a robust run's generated histories.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withHistoryVerdict } from './history-verdict.ts';
import { renderHtmlReport } from './html-report.ts';
import type { HistoryVerdict, RunSummary } from './run-summary.ts';
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

describe('renderHtmlReport: the generated histories of a robust run', () => {
  const histories = JSON.parse(readFileSync(new URL('./fixtures/history-verdicts.json', import.meta.url), 'utf8')) as Record<'passed' | 'failed', HistoryVerdict>;
  const robust = (): RunSummary => ({
    ...fixture('passing'),
    runLevel: 'robust',
    levels: [
      { level: 'wire', passed: 3, total: 3, inconclusive: 0, claimed: true },
      { level: 'strict', passed: 4, total: 4, inconclusive: 0, claimed: true },
      { level: 'robust', passed: 4, total: 4, inconclusive: 0, claimed: true },
    ],
  });

  it('shows passed histories as a card beside the levels: how many, the seed and the seconds', () => {
    const html = renderHtmlReport(withHistoryVerdict(robust(), histories.passed, requirements), requirements);
    const levels = element(html, 'levels', 'section');
    expect(levels).toContain('<div class="levels with-history">');
    expect(levels).toMatch(/robust<\/h3>[\s\S]*claimed[\s\S]*<div class="level history passed" data-level-card="histories">\n<h3>histories<\/h3>[\s\S]*37 <small>histories passed<\/small>[\s\S]*s-passed">passed<\/span> <span class="muted">seed 42 · 10\.2 s<\/span>/);
    expect(html).toContain('<p class="verdict passed">no scenario failed, 37 generated histories passed</p>');
    expect(element(html, 'histories', 'section')).toMatch(/Generated histories: passed[\s\S]*37 histories passed in 10\.2 s \(seed 42, a budget of 10 s\)\.[\s\S]*answers seen: 900× 402 challenge, 420× 200/);
  });

  it('shows a failed history beside the levels, fails the levels holding its requirement, and shows the shrunk counterexample open: replay, operations, exchanges', () => {
    const html = renderHtmlReport(withHistoryVerdict(robust(), histories.failed, requirements), requirements);
    const levels = element(html, 'levels', 'section');
    expect(levels).toMatch(/wire<\/h3>[\s\S]*s-claimed">claimed/);
    expect(levels).toMatch(/strict<\/h3>[\s\S]*s-not-claimed">not claimed<\/span> <span class="muted">generated histories failed CR-6\.9<\/span>/);
    expect(levels).toMatch(/<div class="level history failed"[\s\S]*1\/4 <small>histories failed<\/small>[\s\S]*<a class="id failed" href="#req-CR-6.9">CR-6.9<\/a> <span class="lvl">strict<\/span> <a href="#histories">counterexample<\/a>/);
    expect(html).toContain('<p class="verdict failed">0 scenarios failed, the generated histories failed, 1 requirement failed</p>');
    expect(element(html, 'failed-requirements', 'section')).toMatch(/CR-6\.9<\/a><\/td><td><span class="lvl">strict<\/span><\/td><td class="title">Request ids<\/td><td class="num">no scenario judged it<\/td><td><ul class="plain"><li><a href="#history-failure">a generated history/);
    const failure = element(html, 'history-failure', 'details');
    expect(failure).toMatch(/^<details class="failure" open id="history-failure">/);
    expect(failure).toContain('✗ history failed: <a class="id failed" href="#req-CR-6.9">CR-6.9</a>');
    expect(failure).toContain('after 4 histories in 2.2 s (seed 36101, a budget of 10 s), shrunk to 2 operations');
    expect(failure).toContain('<pre class="replay">credit402-conformance history --target-cmd &#34;node t.js&#34; --ops 20 --seed 36101 --path 3:1:1:0</pre>');
    expect(failure).toContain('<ol class="operations" start="0"><li><code>card 0 pays on GET /api/throws (topUp 100000) rid 2</code></li><li><code>card 1 spends on GET /api/throws rid 2</code></li></ol>');
    expect(failure).toMatch(/<pre class="transcript">transcript \(2 exchanges, 18 ms\):\n {2}op 0 \+4ms GET \/api\/throws[\s\S]*handler ran 1×, 1 ms<\/pre>/);
    expect(/data-status="([^"]+)"/.exec(element(html, 'req-CR-6.9', 'tr'))?.[1]).toBe('failed');
    expect(element(html, 'req-CR-6.9', 'tr')).toContain('a generated history failed');
  });

  it('says why histories did not run, beside the levels, and fails nothing', () => {
    const notRun: HistoryVerdict = { outcome: 'not-run', seed: 9, seconds: 10, histories: 0, durationMs: 0, reason: 'the kit could not run a history: <refused>' };
    const html = renderHtmlReport(withHistoryVerdict(robust(), notRun, requirements), requirements);
    expect(element(html, 'levels', 'section')).toMatch(/<div class="level history not-run"[\s\S]*s-not-run">not run<\/span> <span class="muted">the kit could not run a history: &#60;refused&#62;<\/span>/);
    expect(html).toContain('<p class="verdict passed">no scenario failed</p>');
    expect(element(html, 'histories', 'section')).toContain('Generated histories: not run');
  });
});
