// `credit402-conformance compare`: one page with implementations as columns and every requirement as a row.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { KIT } from '../runner/cli-options.ts';
import { badge, escapeHtml, htmlPage, levelState, requirementStatus, STATUS_LABEL, type RequirementStatus } from './html-page.ts';
import type { RequirementVerdict, RunSummary } from './run-summary.ts';
import { judgedInMode, LEVELS, readRequirements, type Level, type Requirement } from './spec-requirements.ts';

/** One column: a run's summary and where its HTML report is. */
export interface Implementation {
  name: string;
  summary: RunSummary;
  /** The run's conformance.html, when it exists. */
  report?: string;
}

/** Which rows the page shows: requirements of these levels, with one of these statuses somewhere, or that differ. */
export interface RowFilter {
  levels?: readonly Level[];
  statuses?: readonly RequirementStatus[];
  /** Only rows whose status is not the same for every implementation. */
  differ?: boolean;
}

const STATUSES = Object.keys(STATUS_LABEL) as RequirementStatus[];

/** Usage of the command (the kit's `compare --help`). */
export const COMPARE_USAGE = `usage: ${KIT} compare <reports dir>… [--name NAME]… [--level L] [--status S] [--differ] [--out FILE]

Puts the runs side by side in one self-contained HTML page: each reports directory (or
conformance-summary.json file) is a column, named by --name (one per directory, in order),
else by the name the target declared (--declare name=NAME when it was run), else after its
directory; every requirement of spec/protocol.md is a row (passed, failed, not reached,
inconclusive or not run), under each implementation's levels.

  --name NAME      the next directory's column (repeat it, one per directory)
  --level L        only requirements of these levels (wire, strict, robust; comma-separated or repeated)
  --status S       only requirements with this status in some column (${STATUSES.join(', ')};
                   comma-separated or repeated)
  --differ         only requirements whose status differs between the columns
  --out FILE       where the page goes (default: matrix.html)
  -h, --help       print this text and exit`;

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

/**
 * Column names: the `--name` given for the run, else the name its target declared (`name` in the summary), else the
 * directory's basename, with its parent folder where basenames repeat. Never the target's command line.
 */
export function nameImplementations(runs: ReadonlyArray<{ directory: string; summary: RunSummary }>, given: readonly string[] = []): string[] {
  const base = runs.map((run, index) => given[index] ?? run.summary.name ?? basename(run.directory));
  return runs.map((run, index) => {
    const name = base[index] ?? '';
    if (given[index] !== undefined || run.summary.name !== undefined || base.filter((other) => other === name).length === 1) return name;
    return run.directory.split(sep).slice(-2).join('/');
  });
}

/** Whether a row passes the filter, given its level and each implementation's status. */
export function rowShown(level: Level, statuses: readonly RequirementStatus[], filter: RowFilter): boolean {
  if (filter.levels && filter.levels.length > 0 && !filter.levels.includes(level)) return false;
  if (filter.statuses && filter.statuses.length > 0 && !statuses.some((status) => filter.statuses?.includes(status))) return false;
  return !filter.differ || new Set(statuses).size > 1;
}

/** The filter in words, for the page. */
function describeFilter(filter: RowFilter): string {
  const parts = [
    filter.levels?.length ? `level ${filter.levels.join(' or ')}` : '',
    filter.statuses?.length ? `${filter.statuses.map((status) => STATUS_LABEL[status]).join(' or ')} in some column` : '',
    filter.differ ? 'a status that differs between the columns' : '',
  ].filter(Boolean);
  return parts.length === 0 ? '' : ` Shown: requirements of ${parts.join(', with ')}.`;
}

function levelRows(implementations: readonly Implementation[], levels: readonly Level[]): string {
  return levels.map((level) => {
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
export function renderComparison(
  implementations: readonly Implementation[],
  specRequirements: readonly Requirement[],
  hrefOf: (implementation: Implementation) => string | undefined = () => undefined,
  filter: RowFilter = {},
): string {
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
    return `<th class="impl">${name}<br><span class="ok">${passed} passed</span> · <span class="${failed > 0 ? 'bad' : 'muted'}">${failed} failed</span></th>`;
  });
  const shown = rows.filter((row) => rowShown(row.level, verdicts.map((byId) => requirementStatus(byId.get(row.id))), filter));
  const body = shown.map((row) => {
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
<p class="meta">Levels first, then the requirements of spec/protocol.md (${shown.length} of ${rows.length} rows); a cell links to that implementation's report.${escapeHtml(describeFilter(filter))}</p>
</header>
<section id="levels"><h2>Levels</h2>
<table class="matrix">
<thead><tr><th>level</th>${head.join('')}</tr></thead>
<tbody>
${levelRows(implementations, filter.levels?.length ? LEVELS.filter((level) => filter.levels?.includes(level)) : LEVELS)}
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
  const options = {
    out: { type: 'string' },
    name: { type: 'string', multiple: true },
    level: { type: 'string', multiple: true },
    status: { type: 'string', multiple: true },
    differ: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options });
  } catch (error) {
    say(`compare: ${(error as Error).message}\n${COMPARE_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(COMPARE_USAGE);
    return 0;
  }
  if (positionals.length === 0) {
    say(`compare: name at least one reports directory\n${COMPARE_USAGE}`);
    return 2;
  }
  const names = values.name ?? [];
  if (names.length > positionals.length) {
    say(`compare: ${names.length} --name for ${positionals.length} reports director${positionals.length === 1 ? 'y' : 'ies'}: one --name per directory, in order`);
    return 2;
  }
  const listed = (items: readonly string[] | undefined): string[] => (items ?? []).flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean);
  const levels = listed(values.level);
  const statuses = listed(values.status).map((status) => (status === 'not reached' ? 'not-reached' : status === 'not run' ? 'not-run' : status));
  const wrongLevel = levels.find((level) => !(LEVELS as readonly string[]).includes(level));
  const wrongStatus = statuses.find((status) => !(STATUSES as readonly string[]).includes(status));
  if (wrongLevel !== undefined || wrongStatus !== undefined) {
    say(`compare: ${wrongLevel !== undefined ? `--level must be one of ${LEVELS.join(', ')}; got "${wrongLevel}"` : `--status must be one of ${STATUSES.join(', ')}; got "${wrongStatus}"`}`);
    return 2;
  }
  const filter: RowFilter = { levels: levels as Level[], statuses: statuses as RequirementStatus[], differ: values.differ === true };
  let runs: Array<ReturnType<typeof readImplementation>>;
  try {
    runs = positionals.map(readImplementation);
  } catch (error) {
    say(`compare: ${(error as Error).message}`);
    return 2;
  }
  const out = resolve(values.out ?? 'matrix.html');
  const columns = nameImplementations(runs, names);
  const implementations = runs.map((run, index) => ({ name: columns[index] ?? run.directory, summary: run.summary, ...(run.report ? { report: run.report } : {}) }));
  const hrefOf = (implementation: Implementation): string | undefined =>
    implementation.report && relative(dirname(out), implementation.report).split(sep).map(encodeURIComponent).join('/');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderComparison(implementations, readRequirements(), hrefOf, filter));
  say(`compare: ${implementations.length} implementation${implementations.length === 1 ? '' : 's'} (${columns.join(', ')}) → ${out}`);
  return 0;
}
