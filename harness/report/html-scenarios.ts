// The scenario parts of the HTML report: each failure open with its transcript, not-judged scenarios grouped by reason, all scenarios.
import { badge, escapeHtml } from './html-page.ts';
import type { ScenarioOutcome, ScenarioRecord } from './run-summary.ts';

/** How the scenario parts name and link things. */
export interface ScenarioContext {
  levelOf: (id: string) => string;
  /** The failure's anchor (`failure-3`) of a failed scenario. */
  anchorOf: (scenario: ScenarioRecord) => string | undefined;
}

const OUTCOME_LABEL: Record<ScenarioOutcome, string> = { passed: 'passed', failed: 'failed', inconclusive: 'inconclusive', 'not-run': 'not run' };

/** The filter attributes of an element about one scenario. */
export function filterAttributes(status: string, level: string, features: readonly string[]): string {
  return ` data-status="${escapeHtml(status)}" data-level="${escapeHtml(level)}" data-features="${escapeHtml(features.join('\n'))}"`;
}

/** A requirement ID linking to its row of the matrix; `kind` colours it (failed, not-reached). */
export function idLink(id: string, kind = ''): string {
  return `<a class="id ${kind}" href="#req-${escapeHtml(id)}">${escapeHtml(id)}</a>`;
}

const ids = (list: readonly string[], kind: string, context: ScenarioContext): string =>
  list.map((id) => `${idLink(id, kind)} <span class="lvl">${escapeHtml(context.levelOf(id))}</span>`).join(' ');

const where = (scenario: ScenarioRecord): string =>
  `${escapeHtml(scenario.feature)} › <b>${escapeHtml(scenario.name)}</b>`;

function attachments(scenario: ScenarioRecord): string {
  return scenario.attachments
    .map((attachment) => {
      const label = attachment.mediaType === 'text/plain' ? 'transcript: requests, decoded headers, processor journal' : attachment.mediaType;
      return `<div class="attachment-head">${escapeHtml(label)}</div>\n<pre class="transcript">${escapeHtml(attachment.text.replace(/\s+$/, ''))}</pre>`;
    })
    .join('\n');
}

const notices = (scenario: ScenarioRecord): string =>
  scenario.notices.length === 0 ? '' : `<p class="muted">not checked: ${scenario.notices.map(escapeHtml).join('; ')}</p>`;

/** One failed scenario, open: headline (failed and not-reached IDs with levels), where, failing step, message, transcript. */
export function failureBlock(scenario: ScenarioRecord, number: number, context: ScenarioContext): string {
  const failed = scenario.failedIds.length > 0 ? ids(scenario.failedIds, 'failed', context) : '<span class="muted">(no requirement named)</span>';
  const notReached = scenario.notReachedIds.length > 0 ? ` · not reached: ${ids(scenario.notReachedIds, 'not-reached', context)}` : '';
  const tags = scenario.ids.length > 0 ? scenario.ids.map((id) => idLink(id)).join(' ') : '(no requirement tag)';
  return `<details class="failure" open id="failure-${number}"${filterAttributes('failed', scenario.level, [scenario.featureUri])}>
<summary><span class="head">✗ ${number}) failed: ${failed}${notReached}</span><span class="where">${where(scenario)}</span></summary>
<div class="body">
<dl class="facts">
<dt>scenario</dt><dd><code>${escapeHtml(scenario.location)}</code> · ${escapeHtml(scenario.level)} level · ${tags}</dd>
<dt>failed at</dt><dd><code>${escapeHtml(scenario.step ?? '(unknown step)')}</code></dd>
</dl>
<pre class="message">${escapeHtml((scenario.message ?? '').trim() || '(no message)')}</pre>
${notices(scenario)}${attachments(scenario)}
</div>
</details>`;
}

/** Groups scenarios by a key, largest group first. */
function groupBy<T>(items: readonly T[], key: (item: T) => string[]): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const item of items) for (const name of key(item)) groups.set(name, [...(groups.get(name) ?? []), item]);
  return [...groups].sort((a, b) => b[1].length - a[1].length);
}

function listItem(scenario: ScenarioRecord, context: ScenarioContext): string {
  const anchor = context.anchorOf(scenario);
  const name = anchor ? `<a href="#${anchor}">${where(scenario)}</a>` : where(scenario);
  const details = scenario.attachments.length > 0 || scenario.message
    ? `\n<details class="more"><summary>transcript</summary>${scenario.message ? `<pre>${escapeHtml(scenario.message.trim())}</pre>` : ''}${attachments(scenario)}</details>`
    : '';
  const tagged = scenario.ids.map((id) => idLink(id)).join(' ');
  return `<li${filterAttributes(scenario.outcome, scenario.level, [scenario.featureUri])}>${name} <span class="muted">· <code>${escapeHtml(scenario.location)}</code> · ${escapeHtml(scenario.level)}</span> ${tagged}${details}</li>`;
}

/** Scenarios grouped by reason (or notice), with counts; `open` groups are expanded without JS. */
export function reasonGroups(scenarios: readonly ScenarioRecord[], key: (scenario: ScenarioRecord) => string[], open: boolean, context: ScenarioContext): string {
  return groupBy(scenarios, key)
    .map(([reason, members]) => `<details class="group" data-group${open ? ' open' : ''}>
<summary><span class="count">${members.length}</span> ${escapeHtml(reason)}</summary>
<ul>
${members.map((scenario) => listItem(scenario, context)).join('\n')}
</ul>
</details>`)
    .join('\n');
}

/** Every scenario in a table, collapsed (the filters open it). */
export function scenarioTable(scenarios: readonly ScenarioRecord[], context: ScenarioContext): string {
  const rows = scenarios.map((scenario) => {
    const anchor = context.anchorOf(scenario);
    const name = anchor ? `<a href="#${anchor}">${escapeHtml(scenario.name)}</a>` : escapeHtml(scenario.name);
    const reason = scenario.reason ? `<br><span class="muted">${escapeHtml(scenario.reason)}</span>` : '';
    return `<tr${filterAttributes(scenario.outcome, scenario.level, [scenario.featureUri])}><td>${badge(scenario.outcome, OUTCOME_LABEL[scenario.outcome])}</td><td><span class="lvl">${escapeHtml(scenario.level)}</span></td><td>${name}${reason}<br><span class="muted">${escapeHtml(scenario.feature)} · <code>${escapeHtml(scenario.location)}</code></span></td><td>${scenario.ids.map((id) => idLink(id)).join(' ')}</td></tr>`;
  });
  return `<details id="all-scenarios" data-group>
<summary>all ${scenarios.length} scenarios, with outcome, level and requirement IDs</summary>
<table>
<thead><tr><th>outcome</th><th>level</th><th>scenario</th><th>requirements</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</details>`;
}
