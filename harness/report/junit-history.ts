// Puts the verdict of a robust run's generated histories into cucumber's JUnit XML: one more test case, passed, failed with the shrunk counterexample, or skipped with the reason.
import type { HistoryVerdict } from './run-summary.ts';

/** The test case's class name: what it is, beside the features' names. */
export const HISTORY_CLASSNAME = 'Generated histories (the ledger model)';

/** Escapes a value for a double-quoted XML attribute (newlines and tabs too, so they survive attribute normalisation). */
function xmlAttribute(value: string): string {
  return value.replace(/[&<>"\n\r\t]/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Text as CDATA: a `]]>` inside is split across two sections. */
function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

function testCase(history: HistoryVerdict): string {
  const name = `${history.histories} generated histories, seed ${history.seed}, a budget of ${history.seconds} s`;
  const open = `  <testcase classname="${xmlAttribute(HISTORY_CLASSNAME)}" name="${xmlAttribute(name)}" time="${(history.durationMs / 1000).toFixed(3)}">`;
  const notes = history.notes?.length ? `\n    <system-out>${cdata(history.notes.join('\n'))}</system-out>` : '';
  if (history.outcome === 'not-run') return `${open}\n    <skipped message="${xmlAttribute(`not run: ${history.reason ?? 'no reason given'}`)}"/>${notes}\n  </testcase>`;
  if (history.outcome === 'passed' || !history.failure) return notes ? `${open}${notes}\n  </testcase>` : open.replace(/>$/, '/>');
  const { ids, message } = history.failure;
  return `${open}\n    <failure type="history" message="${xmlAttribute(`[${ids.join(', ')}] ${message}`)}">${cdata(history.failure.transcript)}</failure>${notes}\n  </testcase>`;
}

/** Increments the testsuite's count attribute `name` by `by`. */
function bump(tag: string, name: string, by: number): string {
  return by === 0 ? tag : tag.replace(new RegExp(`\\s${name}="(\\d*)"`), (_, count: string) => ` ${name}="${Number(count || 0) + by}"`);
}

/**
 * Returns `xml` with the history verdict as the last test case of its testsuite (the suite's tests, failures, skipped
 * and time follow); unchanged without a verdict.
 */
export function addHistoryTestCase(xml: string, history: HistoryVerdict | undefined): string {
  if (!history) return xml;
  const close = xml.lastIndexOf('</testsuite>');
  const open = /<testsuite\b[^>]*>/.exec(xml);
  if (close < 0 || !open) return xml;
  let tag = bump(open[0], 'tests', 1);
  tag = bump(tag, 'failures', history.outcome === 'failed' ? 1 : 0);
  tag = bump(tag, 'skipped', history.outcome === 'not-run' ? 1 : 0);
  tag = tag.replace(/\stime="([\d.]+)"/, (_, time: string) => ` time="${(Number(time) + history.durationMs / 1000).toFixed(3)}"`);
  const body = `${xml.slice(0, close).trimEnd()}\n${testCase(history)}\n${xml.slice(close)}`;
  return body.slice(0, open.index) + tag + body.slice(open.index + open[0].length);
}
