// `credit402-conformance compare`: one page with implementations as columns and every requirement as a row.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { KIT } from '../runner/cli-options.ts';
import { badge, escapeHtml, htmlPage, levelState, requirementStatus, STATUS_LABEL } from './html-page.ts';
import type { RequirementVerdict, RunSummary } from './run-summary.ts';
import { judgedInMode, LEVELS, readRequirements, type Requirement } from './spec-requirements.ts';

/** One column: a run's summary and where its HTML report is. */
export interface Implementation {
  name: string;
  summary: RunSummary;
  /** The run's conformance.html, when it exists. */
  report?: string;
}

/** Usage of the command (the kit's `compare --help`). */
export const COMPARE_USAGE = `usage: ${KIT} compare <reports dir>… [--out FILE]

Puts the runs side by side in one self-contained HTML page: each reports directory (or
conformance-summary.json file) is a column, named after its directory, or after the run's
target when two directories share a name; every requirement of spec/protocol.md is a row
(passed, failed, not reached, inconclusive or not run), under each implementation's levels.

  --out FILE    where the page goes (default: matrix.html)
  -h, --help    print this text and exit`;

/** Reads a reports directory's conformance-summary.json (or the summary file itself); throws with the path on a problem. */
export function readImplementation(path: string): Omit<Implementation, 'name'> & { directory: string } {
  // A directory holds a server run's summary, or a client run's (`credit402-conformance client`).
  const inDirectory = (name: string): string => join(path, name);
  const isDirectory = existsSync(path) && statSync(path).isDirectory();
  const file = !isDirectory ? path : existsSync(inDirectory('conformance-summary.json')) || !existsSync(inDirectory('client-conformance-summary.json')) ? inDirectory('conformance-summary.json') : inDirectory('client-conformance-summary.json');
  if (!existsSync(file)) throw new Error(`${path}: no conformance-summary.json (run \`credit402-conformance conformance --reports ${path}\` first)`);
  let summary: RunSummary;
  try {
    summary = JSON.parse(readFileSync(file, 'utf8')) as RunSummary;
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(summary.levels) || !Array.isArray(summary.requirements)) throw new Error(`${file} is not a conformance summary (no levels or requirements)`);
  const directory = dirname(resolve(file));
  const report = join(directory, summary.mode === 'client' ? 'client-conformance.html' : 'conformance.html');
  return { summary: { ...summary, scenarios: summary.scenarios ?? [] }, directory, ...(existsSync(report) ? { report } : {}) };
}

/** Column names: the directory's basename; the run's target (or the parent folder) where basenames repeat. */
export function nameImplementations(runs: ReadonlyArray<{ directory: string; summary: RunSummary }>): string[] {
  const base = runs.map((run) => basename(run.directory));
  return runs.map((run, index) => {
    if (base.filter((name) => name === base[index]).length === 1) return base[index] ?? '';
    return run.summary.target ?? run.directory.split(sep).slice(-2).join('/');
  });
}

function levelRows(implementations: readonly Implementation[]): string {
  return LEVELS.map((level) => {
    const cells = implementations.map((implementation) => {
      const verdict = implementation.summary.levels.find((one) => one.level === level);
      if (!verdict) return `<td class="cell">${badge('not-run', 'not run')}</td>`;
      const { state, label } = levelState(verdict);
      const count = verdict.total === undefined ? '' : `${verdict.passed ?? 0}/${verdict.total} `;
      return `<td class="cell">${escapeHtml(count)}${badge(state, label)}</td>`;
    });
    return `<tr><th><span class="lvl">${level}</span></th>${cells.join('')}</tr>`;
  }).join('\n');
}

function cell(verdict: RequirementVerdict | undefined, href: string | undefined): string {
  const status = requirementStatus(verdict);
  const counts = verdict ? `${verdict.passed} passed, ${verdict.failed} failed, ${verdict.notReached} not reached, ${verdict.inconclusive} inconclusive` : 'no scenario of this run judged it';
  const label = badge(status, STATUS_LABEL[status]);
  return `<td class="cell" title="${escapeHtml(counts)}">${href ? `<a href="${escapeHtml(href)}">${label}</a>` : label}</td>`;
}

/** Renders the comparison page; `hrefOf` links a cell to the implementation's own report (relative to the page). */
export function renderComparison(implementations: readonly Implementation[], specRequirements: readonly Requirement[], hrefOf: (implementation: Implementation) => string | undefined = () => undefined): string {
  // Client runs are compared on the (client) requirements, server runs on all the others.
  const mode = implementations.length > 0 && implementations.every(({ summary }) => summary.mode === 'client') ? 'client' : 'server';
  const requirements = specRequirements.filter((requirement) => judgedInMode(requirement, mode));
  const known = new Set(requirements.map((requirement) => requirement.id));
  const extra = new Map<string, RequirementVerdict>();
  for (const { summary } of implementations) for (const verdict of summary.requirements) if (!known.has(verdict.id)) extra.set(verdict.id, verdict);
  const marker = (requirement: Requirement): string =>
    requirement.deprecated ? ' (deprecated)' : requirement.internal ? ' (internal)' : requirement.construction ? ' (construction)' : '';
  const rows = [
    ...requirements.map((requirement) => ({ id: requirement.id, level: requirement.level, title: requirement.title, note: marker(requirement) })),
    ...[...extra.values()].map(({ id, level, title }) => ({ id, level, title: title ?? '', note: '' })),
  ];
  const verdicts = implementations.map((implementation) => new Map(implementation.summary.requirements.map((verdict) => [verdict.id, verdict])));
  const head = implementations.map((implementation) => {
    const href = hrefOf(implementation);
    const name = href ? `<a href="${escapeHtml(href)}">${escapeHtml(implementation.name)}</a>` : escapeHtml(implementation.name);
    const { passed, failed } = implementation.summary;
    const target = implementation.summary.target && implementation.summary.target !== implementation.name ? `<br><span class="muted mono">${escapeHtml(implementation.summary.target)}</span>` : '';
    return `<th class="impl">${name}${target}<br><span class="ok">${passed} passed</span> · <span class="${failed > 0 ? 'bad' : 'muted'}">${failed} failed</span></th>`;
  });
  const body = rows.map((row) => {
    const mine = verdicts.map((byId) => byId.get(row.id));
    const failed = mine.some((verdict) => requirementStatus(verdict) === 'failed');
    const cells = mine.map((verdict, index) => {
      const href = hrefOf(implementations[index] as Implementation);
      return cell(verdict, href && `${href}#req-${row.id}`);
    });
    return `<tr id="req-${escapeHtml(row.id)}"${failed ? ' class="row-failed"' : ''}><td class="id">${escapeHtml(row.id)}</td><td><span class="lvl">${escapeHtml(row.level)}</span></td><td>${escapeHtml(row.title)}${row.note ? `<span class="muted">${escapeHtml(row.note)}</span>` : ''}</td>${cells.join('')}</tr>`;
  });
  const page = `<header>
<h1>credit402 conformance: ${implementations.length} implementation${implementations.length === 1 ? '' : 's'} compared</h1>
<p class="meta">Levels first, then every requirement of spec/protocol.md; a cell links to that implementation's report.</p>
</header>
<section id="levels"><h2>Levels</h2>
<table class="matrix">
<thead><tr><th>level</th>${head.join('')}</tr></thead>
<tbody>
${levelRows(implementations)}
</tbody>
</table>
</section>
<section id="requirements"><h2>Requirements</h2>
<table class="matrix">
<thead><tr><th>ID</th><th>level</th><th>title</th>${implementations.map((implementation) => `<th class="impl">${escapeHtml(implementation.name)}</th>`).join('')}</tr></thead>
<tbody>
${body.join('\n')}
</tbody>
</table>
</section>
<footer>Generated by credit402-conformance compare from each run's conformance-summary.json. "not run": no scenario of that run judged the requirement (its level was not run, or it is checked inside implementations).</footer>`;
  return htmlPage(`credit402 conformance: ${implementations.map((implementation) => implementation.name).join(' vs ')}`, page);
}

/** `compare <dir>… --out FILE`: writes the page; resolves to the exit code (2 on a usage mistake or an unreadable summary). */
export function runCompare(args: readonly string[], say: (line: string) => void = (line) => void process.stderr.write(`${line}\n`)): number {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(COMPARE_USAGE);
    return 0;
  }
  if (positionals.length === 0) {
    say(`compare: name at least one reports directory\n${COMPARE_USAGE}`);
    return 2;
  }
  let runs: Array<ReturnType<typeof readImplementation>>;
  try {
    runs = positionals.map(readImplementation);
  } catch (error) {
    say(`compare: ${(error as Error).message}`);
    return 2;
  }
  const out = resolve(values.out ?? 'matrix.html');
  const names = nameImplementations(runs);
  const implementations = runs.map((run, index) => ({ name: names[index] ?? run.directory, summary: run.summary, ...(run.report ? { report: run.report } : {}) }));
  const hrefOf = (implementation: Implementation): string | undefined =>
    implementation.report && relative(dirname(out), implementation.report).split(sep).map(encodeURIComponent).join('/');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderComparison(implementations, readRequirements(), hrefOf));
  say(`compare: ${implementations.length} implementation${implementations.length === 1 ? '' : 's'} (${names.join(', ')}) → ${out}`);
  return 0;
}
