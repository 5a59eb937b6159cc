// The generated histories in the HTML report: their card beside the levels, and their section (passed, not run, or failed with the shrunk counterexample as a transcript).
import { badge, escapeHtml } from './html-page.ts';
import { idLink } from './html-scenarios.ts';
import type { HistoryVerdict } from './run-summary.ts';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const histories = (count: number): string => `${count} histor${count === 1 ? 'y' : 'ies'}`;

/** The card beside the levels: passed (N histories, seed, seconds), failed (the IDs, linking to the counterexample) or not run. */
export function historyCard(history: HistoryVerdict, levelOf: (id: string) => string): string {
  const facts = `seed ${history.seed} · ${seconds(history.durationMs)}`;
  const { count, state } = history.outcome === 'passed'
    ? { count: `${history.histories} <small>histories passed</small>`, state: `${badge('passed')} <span class="muted">${escapeHtml(facts)}</span>` }
    : history.outcome === 'failed'
      ? {
          count: `1/${history.histories} <small>histories failed</small>`,
          state: `${badge('failed')} ${(history.failure?.ids ?? []).map((id) => `${idLink(id, 'failed')} <span class="lvl">${escapeHtml(levelOf(id))}</span>`).join(' ')} <a href="#histories">counterexample</a> <span class="muted">${escapeHtml(facts)}</span>`,
        }
      : { count: '–', state: `${badge('not-run', 'not run')} <span class="muted">${escapeHtml(history.reason ?? '')}</span>` };
  return `<div class="level history ${history.outcome}" data-level-card="histories">
<h3>histories</h3>
<p class="what">generated histories against the ledger model (robust level)</p>
<p class="count">${count}</p>
<p class="state">${state}</p>
</div>`;
}

function answers(history: HistoryVerdict): string {
  const entries = Object.entries(history.answers ?? {}).sort(([, a], [, b]) => b - a);
  return entries.length === 0 ? '' : `<p class="muted">answers seen: ${entries.map(([key, count]) => `${count}× ${escapeHtml(key)}`).join(', ')}</p>`;
}

const notes = (history: HistoryVerdict): string =>
  history.notes?.length ? `<ul class="notes">${history.notes.map((note) => `<li class="muted">${escapeHtml(note)}</li>`).join('')}</ul>` : '';

/** The counterexample's transcript from its exchanges on (the verdict, operations and replay lines stand above it). */
function exchanges(transcript: string): string {
  const from = transcript.search(/^transcript \(/m);
  return (from < 0 ? transcript : transcript.slice(from)).replace(/\s+$/, '');
}

/** The section of the histories; a failure is shown open: its requirement and message, the replay command, the shrunk operations and the transcript of its run. */
export function historySection(history: HistoryVerdict, levelOf: (id: string) => string): string {
  const budget = `seed ${history.seed}, a budget of ${history.seconds} s`;
  const intro = '<p class="muted">After the suite, a robust run drives generated histories against the target (paid calls, bursts, retries of request ids, malformed bodies, store faults when declared) and checks every answer against a ledger model; a violation is charged to the requirement the broken invariant enforces, and shrunk.</p>';
  if (history.outcome === 'not-run') {
    return `<section id="histories"><h2>Generated histories: not run</h2>\n${intro}\n<p>${badge('not-run', 'not run')} ${escapeHtml(history.reason ?? 'no reason given')} (not failed; ${escapeHtml(budget)})</p>\n${notes(history)}</section>`;
  }
  if (history.outcome === 'passed' || !history.failure) {
    return `<section id="histories"><h2>Generated histories: passed</h2>\n${intro}\n<p>${badge('passed')} ${histories(history.histories)} passed in ${seconds(history.durationMs)} (${escapeHtml(budget)}).</p>\n${answers(history)}${notes(history)}</section>`;
  }
  const { ids, message, at, operations, replay, transcript } = history.failure;
  const failed = ids.map((id) => `${idLink(id, 'failed')} <span class="lvl">${escapeHtml(levelOf(id))}</span>`).join(' ');
  return `<section id="histories"><h2>Generated histories: failed</h2>
${intro}
<details class="failure" open id="history-failure">
<summary><span class="head">✗ history failed: ${failed}</span><span class="where">after ${histories(history.histories)} in ${seconds(history.durationMs)} (${escapeHtml(budget)}), shrunk to ${operations.length} operation${operations.length === 1 ? '' : 's'}</span></summary>
<div class="body">
<pre class="message">${escapeHtml(message)}</pre>
<dl class="facts">
<dt>at</dt><dd>${escapeHtml(at)}</dd>
<dt>replay</dt><dd><pre class="replay">${escapeHtml(replay)}</pre></dd>
</dl>
<div class="attachment-head">the shrunk history</div>
<ol class="operations" start="0">${operations.map((operation) => `<li><code>${escapeHtml(operation)}</code></li>`).join('')}</ol>
<div class="attachment-head">transcript: every exchange of its last run, and the emulator's journal</div>
<pre class="transcript">${escapeHtml(exchanges(transcript))}</pre>
${answers(history)}${notes(history)}
</div>
</details>
</section>`;
}
