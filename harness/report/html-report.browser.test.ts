// Opens a failing report in headless Chromium: the levels block and a failed requirement show without a click; the filters work; a failed history shows beside the levels with its counterexample open.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { withHistoryVerdict } from './history-verdict.ts';
import { renderHtmlReport } from './html-report.ts';
import type { HistoryVerdict, RunSummary } from './run-summary.ts';
import { readRequirements } from './spec-requirements.ts';

/** Debian's chromium (CHROMIUM_BIN overrides); undefined when there is none. */
function findChromium(): string | undefined {
  if (process.env.CHROMIUM_BIN) return process.env.CHROMIUM_BIN;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const found = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

const CHROMIUM = findChromium();
const WIDTH = 1280;
const HEIGHT = 2000;
const dir = mkdtempSync(join(tmpdir(), 'credit402-html-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Skips without Chromium, except in CI (CI=true), where .ci/run installs it and its absence fails the test. */
function requireChromium(context: TestContext): string {
  if (CHROMIUM) return CHROMIUM;
  const install = "install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_BIN";
  if (process.env.CI === 'true') throw new Error(`CI=true but no headless Chromium (/usr/bin/chromium or chromium on PATH): ${install}`);
  console.warn(`html-report.browser.test.ts skipped: no headless Chromium found; ${install} to run it`);
  return context.skip(`no headless Chromium: ${install}`);
}

async function chromium(binary: string, args: string[], page: string): Promise<string> {
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--run-all-compositor-stages-before-draw', `--user-data-dir=${join(dir, 'profile')}`, `--window-size=${WIDTH},${HEIGHT}`];
  const { stdout } = await promisify(execFile)(binary, [...flags, ...args, pathToFileURL(page).href], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * A script that runs `measure` in the page after the page's own script (statements filling `result`, with `shown` at
 * hand), then writes `result` as JSON into `<pre id="probe">` for {@link probe} to read.
 */
function probeScript(measure: string): string {
  return `<script>
(function () {
  function shown(element) {
    if (!element || !element.checkVisibility()) return false;
    var box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  }
${measure}
  var out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
})();
</script>`;
}

/** Measures what is visible on the first screen, then what the status filter hides. */
const PROBE = probeScript(`  function onFirstScreen(element) { return shown(element) && element.getBoundingClientRect().top < window.innerHeight; }
  var levels = document.getElementById('levels');
  var failedRow = document.querySelector('#failed-requirements tr.row-failed');
  var failure = document.getElementById('failure-1');
  var failedId = failure.querySelector('summary a.id.failed');
  var transcript = failure.querySelector('pre.transcript');
  var result = {
    levelsOnFirstScreen: onFirstScreen(levels),
    levelsText: levels.innerText,
    failedRowOnFirstScreen: onFirstScreen(failedRow),
    failedRowText: failedRow.innerText,
    failureOpen: failure.open,
    failedId: shown(failedId) ? failedId.textContent : null,
    failedIdInOpenDetails: failedId.closest('details').open,
    transcriptShown: shown(transcript) && transcript.getBoundingClientRect().height > 100,
    filtersShown: shown(document.getElementById('filters')),
  };
  var form = document.getElementById('filters');
  form.elements.status.value = 'passed';
  form.dispatchEvent(new Event('change'));
  result.filteredFailureShown = shown(failure);
  result.filteredPassedRowShown = shown(document.querySelector('#all-scenarios tr[data-status="passed"]'));`);

const summary = JSON.parse(readFileSync(new URL('./fixtures/failing-summary.json', import.meta.url), 'utf8')) as RunSummary;
const report = join(dir, 'conformance.html');
writeFileSync(report, renderHtmlReport(summary, readRequirements()));

/** Measures a report with a failed history: its card beside the levels on the first screen, its counterexample open. */
const HISTORY_PROBE = probeScript(`  var card = document.querySelector('[data-level-card="histories"]');
  var robust = document.querySelector('[data-level-card="robust"]');
  var failure = document.getElementById('history-failure');
  var result = {
    cardOnFirstScreen: shown(card) && card.getBoundingClientRect().bottom < window.innerHeight,
    cardBesideLevels: Math.abs(card.getBoundingClientRect().top - robust.getBoundingClientRect().top) < 2 && card.getBoundingClientRect().left > robust.getBoundingClientRect().right,
    cardText: card.innerText,
    robustText: robust.innerText,
    failureOpen: failure.open,
    replayShown: shown(failure.querySelector('pre.replay')),
    operations: Array.prototype.map.call(failure.querySelectorAll('ol.operations li'), function (li) { return li.innerText; }),
    transcriptShown: shown(failure.querySelector('pre.transcript')),
  };`);

const decode = (text: string): string => text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Writes `html` with `script` added as `name`, opens it in Chromium, and returns what the script measured. */
async function probe(binary: string, html: string, script: string, name: string): Promise<Record<string, unknown>> {
  const page = join(dir, name);
  writeFileSync(page, html.replace('</body>', `${script}\n</body>`));
  const json = /<pre id="probe">([^<]*)<\/pre>/.exec(await chromium(binary, ['--dump-dom'], page))?.[1];
  expect(json, 'the probe did not run in Chromium').toBeDefined();
  return JSON.parse(decode(json ?? '{}')) as Record<string, unknown>;
}

describe('the HTML report in headless Chromium', () => {
  it('shows the levels block and the failed requirement without a click, each failure open with its transcript; the status filter hides it', async (context) => {
    const binary = requireChromium(context);
    const result = await probe(binary, readFileSync(report, 'utf8'), PROBE, 'probed.html');
    expect(result).toMatchObject({
      levelsOnFirstScreen: true,
      failedRowOnFirstScreen: true,
      failureOpen: true,
      failedId: 'CR-7.14',
      failedIdInOpenDetails: true,
      transcriptShown: true,
      filtersShown: true,
      filteredFailureShown: false,
      filteredPassedRowShown: true,
    });
    expect(result.levelsText).toMatch(/WIRE[\s\S]*1\/3 scenarios passed[\s\S]*not claimed[\s\S]*ROBUST[\s\S]*not declared/);
    expect(result.failedRowText).toMatch(/CR-7\.14\s+wire\s+Charged amount/);
  }, 90_000);

  it('shows a failed history beside the levels on the first screen, the levels holding its requirement not claimed, and its counterexample open', async (context) => {
    const binary = requireChromium(context);
    const histories = JSON.parse(readFileSync(new URL('./fixtures/history-verdicts.json', import.meta.url), 'utf8')) as Record<'failed', HistoryVerdict>;
    const passing = JSON.parse(readFileSync(new URL('./fixtures/passing-summary.json', import.meta.url), 'utf8')) as RunSummary;
    const robust: RunSummary = { ...passing, runLevel: 'robust', levels: [...passing.levels.slice(0, 2), { level: 'robust', passed: 4, total: 4, inconclusive: 0, claimed: true }] };
    const html = renderHtmlReport(withHistoryVerdict(robust, histories.failed, readRequirements()), readRequirements());
    const result = await probe(binary, html, HISTORY_PROBE, 'history-probed.html');
    expect(result).toMatchObject({
      cardOnFirstScreen: true,
      cardBesideLevels: true,
      failureOpen: true,
      replayShown: true,
      operations: ['card 0 pays on GET /api/throws (topUp 100000) rid 2', 'card 1 spends on GET /api/throws rid 2'],
      transcriptShown: true,
    });
    expect(result.cardText).toMatch(/HISTORIES[\s\S]*1\/4\s+histories failed[\s\S]*failed\s+CR-6\.9\s+strict\s+counterexample\s+seed 36101/);
    expect(result.robustText).toMatch(/not claimed\s+generated histories failed CR-6\.9/);
  }, 90_000);

  it('renders a 1280-pixel-wide screenshot', async (context) => {
    const binary = requireChromium(context);
    const png = join(dir, 'report.png');
    await chromium(binary, [`--screenshot=${png}`], report);
    const header = readFileSync(png);
    expect(header.subarray(1, 4).toString()).toBe('PNG');
    expect([header.readUInt32BE(16), header.readUInt32BE(20)]).toEqual([WIDTH, HEIGHT]);
  }, 90_000);
});
