// The kit's self-contained HTML report of one run (conformance.html), rendered from conformance-summary.json.
import { historyCard, historySection } from './html-history.ts';
import { badge, escapeHtml, htmlPage, LEVEL_MEANING, levelState, requirementStatus, STATUS_LABEL, STRIPE402, type RequirementStatus } from './html-page.ts';
import { failureBlock, filterAttributes, idLink, reasonGroups, scenarioTable, type ScenarioContext } from './html-scenarios.ts';
import type { HistoryVerdict, LevelVerdict, RequirementVerdict, RunSummary, ScenarioRecord } from './run-summary.ts';
import { judgedInMode, LEVELS, type Requirement } from './spec-requirements.ts';

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What the robust level is for a client (spec §0): its one requirement of §16. */
const CLIENT_ROBUST = 'a kept clientId across restarts (CR-16.17)';

/**
 * The levels block: per level, scenarios passed and whether the target (or, in client mode, the client) claims it;
 * beside them, the generated histories of a robust run.
 */
export function levelsBlock(levels: readonly LevelVerdict[], mode: RunSummary['mode'] = 'server', history?: HistoryVerdict, levelOf: (id: string) => string = () => ''): string {
  const cards = levels.map((verdict) => {
    const { state, label, detail } = levelState(verdict);
    const count = verdict.total === undefined
      ? `<p class="count">–</p>`
      : `<p class="count">${verdict.passed ?? 0}/${verdict.total} <small>scenarios passed</small></p>`;
    const inconclusive = verdict.inconclusive ? ` <span class="badge s-inconclusive">${verdict.inconclusive} inconclusive</span>` : '';
    return `<div class="level ${state}" data-level-card="${escapeHtml(verdict.level)}">
<h3>${escapeHtml(verdict.level)}</h3>
<p class="what">${escapeHtml(mode === 'client' && verdict.level === 'robust' ? CLIENT_ROBUST : (LEVEL_MEANING[verdict.level] ?? ''))}</p>
${count}
<p class="state">${badge(state, label)}${inconclusive}${detail ? ` <span class="muted">${escapeHtml(detail)}</span>` : ''}</p>
</div>`;
  });
  if (history) cards.push(historyCard(history, levelOf));
  const histories = history ? ' The generated histories belong to the robust level: a failed one fails the requirement it is charged to, and every level holding it.' : '';
  return `<section id="levels" aria-label="levels">
<div class="levels${history ? ' with-history' : ''}">
${cards.join('\n')}
</div>
<p class="muted">Each level counts its scenarios and those of the levels below; the ${mode === 'client' ? 'client' : 'target'} claims a level when all of them passed and none was inconclusive.${histories} ${escapeHtml(STRIPE402)}</p>
</section>`;
}

/** The features of the scenarios that carry each requirement ID (for the feature filter). */
function featuresById(scenarios: readonly ScenarioRecord[]): Map<string, string[]> {
  const features = new Map<string, Set<string>>();
  for (const scenario of scenarios) for (const id of new Set([...scenario.ids, ...scenario.failedIds])) features.set(id, (features.get(id) ?? new Set()).add(scenario.featureUri));
  return new Map([...features].map(([id, uris]) => [id, [...uris]]));
}

function filterForm(scenarios: readonly ScenarioRecord[]): string {
  const features = [...new Map(scenarios.map((scenario) => [scenario.featureUri, scenario.feature]))].sort(([a], [b]) => a.localeCompare(b));
  const option = (value: string, label: string): string => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`;
  const statuses: Array<[string, string]> = [['failed', 'failed'], ['passed', 'passed'], ['not-reached', 'not reached'], ['inconclusive', 'inconclusive'], ['not-run', 'not run']];
  return `<form id="filters" class="filters" hidden>
<label>level <select name="level">${option('', 'all')}${LEVELS.map((level) => option(level, level)).join('')}</select></label>
<label>feature <select name="feature">${option('', 'all')}${features.map(([uri, name]) => option(uri, name)).join('')}</select></label>
<label>status <select name="status">${option('', 'all')}${statuses.map(([value, label]) => option(value, label)).join('')}</select></label>
<button type="reset">show all</button>
<output></output>
</form>`;
}

interface Context extends ScenarioContext {
  titleOf: (id: string) => string;
  features: Map<string, string[]>;
}

function failedRequirements(summary: RunSummary, context: Context): string {
  const failed = summary.requirements.filter((verdict) => verdict.failed > 0);
  if (failed.length === 0) return '<p>No requirement failed.</p>';
  const rows = failed.map((verdict) => {
    const scenarios = summary.scenarios.filter((scenario) => scenario.outcome === 'failed' && scenario.failedIds.includes(verdict.id));
    const links = scenarios.map((scenario) => {
      const anchor = context.anchorOf(scenario) ?? '';
      return `<li><a href="#${anchor}" title="${escapeHtml(scenario.location)}">${anchor.replace('failure-', '')}) ${escapeHtml(scenario.name)}</a></li>`;
    });
    if (verdict.historyFailed) links.push('<li><a href="#history-failure">a generated history (the shrunk counterexample)</a></li>');
    const scenariosFailed = verdict.failed - (verdict.historyFailed ? 1 : 0);
    const judged = verdict.passed + scenariosFailed;
    const notReached = verdict.notReached > 0 ? `, ${verdict.notReached} not reached` : '';
    return `<tr class="row-failed"${filterAttributes('failed', verdict.level, context.features.get(verdict.id) ?? [])}><td>${idLink(verdict.id, 'failed')}</td><td><span class="lvl">${escapeHtml(verdict.level)}</span></td><td class="title">${escapeHtml(context.titleOf(verdict.id))}</td><td class="num">${judged > 0 ? `${scenariosFailed} of ${judged} failed` : 'no scenario judged it'}${notReached}</td><td><ul class="plain">${links.join('')}</ul></td></tr>`;
  });
  return `<table>
<thead><tr><th>requirement</th><th>level</th><th>title</th><th>scenarios</th><th>failing checks in</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
}

function counts(verdict: RequirementVerdict | undefined): string {
  if (!verdict) return '';
  const failed = verdict.failed - (verdict.historyFailed ? 1 : 0);
  const parts = [['passed', verdict.passed], ['failed', failed], ['not reached', verdict.notReached], ['inconclusive', verdict.inconclusive]] as const;
  const scenarios = parts.filter(([, count]) => count > 0).map(([label, count]) => `${count} ${label}`);
  return [...scenarios, ...(verdict.historyFailed ? ['a generated history failed'] : [])].join(' · ');
}

/** Every requirement of the spec (and any other ID the run judged), with its verdict and scenario counts. */
function requirementMatrix(summary: RunSummary, requirements: readonly Requirement[], context: Context): string {
  const verdicts = new Map(summary.requirements.map((verdict) => [verdict.id, verdict]));
  const known = new Set(requirements.map((requirement) => requirement.id));
  const rows = [
    ...requirements.map((requirement) => ({ id: requirement.id, level: requirement.level, requirement })),
    ...summary.requirements.filter((verdict) => !known.has(verdict.id)).map((verdict) => ({ id: verdict.id, level: verdict.level, requirement: undefined })),
  ];
  const statuses = rows.map((row) => requirementStatus(verdicts.get(row.id)));
  const perLevel = LEVELS.map((level) => {
    const mine = statuses.filter((_, index) => rows[index]?.level === level);
    const cells = (Object.keys(STATUS_LABEL) as RequirementStatus[]).map((status) => `<td class="num">${mine.filter((one) => one === status).length}</td>`);
    return `<tr><td><span class="lvl">${level}</span></td>${cells.join('')}<td class="num">${mine.length}</td></tr>`;
  });
  const body = rows.map((row, index) => {
    const status = statuses[index] ?? 'not-run';
    const marker = row.requirement && (row.requirement.deprecated ? 'deprecated' : row.requirement.internal ? 'internal' : row.requirement.construction ? 'construction' : '');
    const note = marker ? ` <span class="muted">(${marker})</span>` : '';
    return `<tr id="req-${escapeHtml(row.id)}" class="row-${status}"${filterAttributes(status, row.level, context.features.get(row.id) ?? [])}><td class="id">${escapeHtml(row.id)}</td><td><span class="lvl">${escapeHtml(row.level)}</span></td><td>${escapeHtml(context.titleOf(row.id))}${note}</td><td>${badge(status, STATUS_LABEL[status])}</td><td class="muted">${counts(verdicts.get(row.id))}</td></tr>`;
  });
  return `<table class="per-level">
<thead><tr><th>level</th>${Object.values(STATUS_LABEL).map((label) => `<th class="num">${label}</th>`).join('')}<th class="num">requirements</th></tr></thead>
<tbody>
${perLevel.join('\n')}
</tbody>
</table>
<h3>every ${summary.mode === 'client' ? 'client requirement (spec §16)' : 'requirement'} of spec/protocol.md</h3>
<table class="requirements">
<thead><tr><th>ID</th><th>level</th><th>title</th><th>verdict</th><th>scenarios</th></tr></thead>
<tbody>
${body.join('\n')}
</tbody>
</table>`;
}

/** `2026-11-27T16:42:41.836Z` → `2026-11-27 16:42:41 UTC`; anything else as it is. */
function when(startedAt: string): string {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?Z$/.exec(startedAt);
  return match ? `${match[1]} ${match[2]} UTC` : startedAt;
}

function header(summary: RunSummary, failedRequirements: number): string {
  const meta = [
    summary.target && `${summary.mode === 'client' ? 'driver' : 'target'}: <code>${escapeHtml(summary.target)}</code>`,
    summary.startedAt && `started ${escapeHtml(when(summary.startedAt))}`,
    `judged up to the ${escapeHtml(summary.runLevel)} level`,
  ].filter(Boolean);
  const historyFailed = summary.history?.outcome === 'failed';
  const failed = summary.failed > 0 || summary.runErrors.length > 0 || historyFailed;
  const verdict = failed
    ? `${plural(summary.failed, 'scenario')} failed${historyFailed ? ', the generated histories failed' : ''}, ${plural(failedRequirements, 'requirement')} failed${summary.runErrors.length > 0 ? `, ${plural(summary.runErrors.length, 'run error')}` : ''}`
    : `no scenario failed${summary.history?.outcome === 'passed' ? `, ${summary.history.histories} generated histories passed` : ''}`;
  const toc = [
    failed && '<a href="#failed-requirements">failed requirements</a>',
    failed && `<a href="#failures">failures (${summary.failed})</a>`,
    summary.history && `<a href="#histories">generated histories (${summary.history.outcome === 'not-run' ? 'not run' : summary.history.outcome})</a>`,
    `<a href="#not-judged">inconclusive and not run (${summary.inconclusive + summary.notRun})</a>`,
    '<a href="#matrix">requirement matrix</a>',
    '<a href="#scenarios">all scenarios</a>',
  ].filter(Boolean);
  return `<header>
<h1>credit402 ${summary.mode === 'client' ? 'client ' : ''}conformance report</h1>
<p class="meta">${meta.join(' · ')}</p>
<p class="verdict ${failed ? 'failed' : 'passed'}">${escapeHtml(verdict)}</p>
<div class="counts">${badge('passed', `${summary.passed} passed`)} ${badge('failed', `${summary.failed} failed`)} ${badge('inconclusive', `${summary.inconclusive} inconclusive`)} ${badge('not-run', `${summary.notRun} not run`)}</div>
<nav class="toc">${toc.join('')}</nav>
</header>`;
}

/** Failed requirements, then each failure open; one line when nothing failed. */
function failureSections(summary: RunSummary, failures: readonly ScenarioRecord[], context: Context): string {
  const failedCount = summary.requirements.filter((verdict) => verdict.failed > 0).length;
  if (failures.length === 0 && failedCount === 0) return '<section id="failures"><h2>Failures</h2>\n<p>No scenario failed and no requirement failed.</p></section>';
  return `<section id="failed-requirements" data-group><h2>Failed requirements (${failedCount})</h2>\n${failedRequirements(summary, context)}</section>
<section id="failures" data-group><h2>Failures (${failures.length})</h2>\n${failures.length === 0 ? '<p>No scenario failed: the generated histories did (below).</p>' : failures.map((scenario, index) => failureBlock(scenario, index + 1, context)).join('\n')}</section>`;
}

/** Inconclusive and not-run scenarios grouped by reason, and what the kit could not check in judged ones. */
function notJudgedSection(scenarios: readonly ScenarioRecord[], context: Context): string {
  const inconclusive = scenarios.filter((scenario) => scenario.outcome === 'inconclusive');
  const notRun = scenarios.filter((scenario) => scenario.outcome === 'not-run');
  const noticed = scenarios.filter((scenario) => scenario.notices.length > 0);
  const reason = (scenario: ScenarioRecord): string[] => [scenario.reason ?? '(no reason given)'];
  const parts = inconclusive.length + notRun.length === 0
    ? ['<p>No scenario was inconclusive or not run.</p>']
    : [
        '<p class="muted">Neither counts as failed: an inconclusive scenario could not tell (an injected fault never fired); a not-run scenario is above the run\'s level or needs a capability the target does not declare.</p>',
        `<h3>Inconclusive (${inconclusive.length})</h3>`,
        inconclusive.length === 0 ? '<p class="muted">none</p>' : reasonGroups(inconclusive, reason, true, context),
        `<h3>Not run (${notRun.length})</h3>`,
        notRun.length === 0 ? '<p class="muted">none</p>' : reasonGroups(notRun, reason, false, context),
      ];
  if (noticed.length > 0) parts.push('<h3>Not checked in judged scenarios</h3>', reasonGroups(noticed, (scenario) => scenario.notices, false, context));
  return `<section id="not-judged"><h2>Inconclusive and not run</h2>\n${parts.join('\n')}\n</section>`;
}

/** Renders a run's summary as one self-contained HTML page; `requirements` are the spec's (readRequirements()). */
export function renderHtmlReport(summary: RunSummary, specRequirements: readonly Requirement[]): string {
  const mode = summary.mode ?? 'server';
  // A client run judges the (client) requirements only, a server run all the others: the matrix lists the run's.
  const requirements = specRequirements.filter((requirement) => judgedInMode(requirement, mode));
  const scenarios = summary.scenarios ?? [];
  const spec = new Map(requirements.map((requirement) => [requirement.id, requirement]));
  const judged = new Map(summary.requirements.map((verdict) => [verdict.id, verdict]));
  const failures = scenarios.filter((scenario) => scenario.outcome === 'failed');
  const anchors = new Map(failures.map((scenario, index) => [scenario, `failure-${index + 1}`]));
  const context: Context = {
    levelOf: (id) => spec.get(id)?.level ?? judged.get(id)?.level ?? 'strict',
    titleOf: (id) => spec.get(id)?.title ?? judged.get(id)?.title ?? '',
    anchorOf: (scenario) => anchors.get(scenario),
    features: featuresById(scenarios),
  };
  const body = [
    header(summary, summary.requirements.filter((verdict) => verdict.failed > 0).length),
    levelsBlock(summary.levels, summary.mode, summary.history, context.levelOf),
    summary.runErrors.length > 0 ? `<section id="run-errors"><h2>Run errors</h2><pre class="message">${escapeHtml(summary.runErrors.join('\n'))}</pre></section>` : '',
    filterForm(scenarios),
    failureSections({ ...summary, scenarios }, failures, context),
    summary.history ? historySection(summary.history, context.levelOf) : '',
    notJudgedSection(scenarios, context),
    `<section id="matrix"><h2>Requirement matrix</h2>\n${requirementMatrix(summary, requirements, context)}</section>`,
    `<section id="scenarios"><h2>All scenarios</h2>\n${scenarioTable(scenarios, context)}</section>`,
    `<footer>Generated by credit402-conformance from conformance-summary.json. An ID fails when a check naming it failed; an ID of a failed scenario none of whose checks ran is "not reached"; "not run" IDs were judged by no scenario of this run (a check above the run's level is not made).</footer>`,
  ];
  const outcome = summary.failed > 0 ? `${summary.failed} failed` : summary.history?.outcome === 'failed' ? 'histories failed' : summary.runErrors.length > 0 ? 'run error' : 'passed';
  const title = `credit402 ${mode === 'client' ? 'client ' : ''}conformance: ${outcome}${summary.target ? ` (${summary.target})` : ''}`;
  return htmlPage(title, body.filter(Boolean).join('\n'));
}
