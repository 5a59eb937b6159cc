// Unit tests of `compare`: implementations as columns, every requirement as a row, the levels on top.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nameImplementations, renderComparison, rowShown, runCompare } from './compare.ts';
import type { RunSummary } from './run-summary.ts';
import { readRequirements } from './spec-requirements.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string): RunSummary => JSON.parse(readFileSync(new URL(`${name}-summary.json`, FIXTURES), 'utf8')) as RunSummary;
const requirements = readRequirements();

const row = (html: string, id: string): string => {
  const start = html.indexOf(`<tr id="req-${id}"`);
  return html.slice(start, html.indexOf('</tr>', start));
};
const cells = (html: string, id: string): string[] => [...row(html, id).matchAll(/<span class="badge s-([a-z-]+)">/g)].map((match) => match[1] ?? '');

describe('renderComparison', () => {
  const html = renderComparison([{ name: 'reference', summary: fixture('passing') }, { name: 'round-down', summary: fixture('failing') }], requirements);

  it('has one column per implementation, in order, with its counts and no command line', () => {
    expect(html).toMatch(/<th class="impl">reference<br><span class="ok">4 passed<\/span>[\s\S]*<th class="impl">round-down/);
    expect(html).not.toContain('node tooling/self-test/target.ts');
  });

  it('puts the levels of each implementation first', () => {
    expect(html.indexOf('id="levels"')).toBeLessThan(html.indexOf('id="requirements"'));
    const wire = html.slice(html.indexOf('<tr><th><span class="lvl">wire'), html.indexOf('</tr>', html.indexOf('<tr><th><span class="lvl">wire')));
    expect(wire).toMatch(/3\/3 <span class="badge s-claimed">claimed<\/span>[\s\S]*1\/3 <span class="badge s-not-claimed">not claimed<\/span>/);
    expect(html).toMatch(/robust[\s\S]*not declared[\s\S]*not declared/);
  });

  it('has a row for every requirement of the spec that servers meet (not the client ones), with its level and title, and a verdict per implementation', () => {
    for (const requirement of requirements) expect(html.includes(`<tr id="req-${requirement.id}"`)).toBe(!requirement.client);
    expect(row(html, 'CR-7.14')).toContain('<td>Charged amount</td>');
    expect(row(html, 'CR-7.14')).toMatch(/^<tr id="req-CR-7.14" class="row-failed">/);
    expect(cells(html, 'CR-7.14')).toEqual(['passed', 'failed']);
    expect(cells(html, 'CR-1.3')).toEqual(['passed', 'not-reached']);
    expect(cells(html, 'CR-7.21')).toEqual(['not-run', 'inconclusive']);
    expect(cells(html, 'CR-1.1')).toEqual(['not-run', 'not-run']);
  });
});

describe('filters', () => {
  const two = [{ name: 'reference', summary: fixture('passing') }, { name: 'round-down', summary: fixture('failing') }];
  const rows = (html: string): string[] => [...html.matchAll(/<tr id="req-(CR-[\d.]+)"/g)].map((match) => match[1] ?? '');

  it('keeps the rows of the levels asked for, and their level lines only', () => {
    const html = renderComparison(two, requirements, undefined, { levels: ['strict'] });
    expect(rows(html).length).toBeGreaterThan(0);
    expect(rows(html).every((id) => requirements.find((requirement) => requirement.id === id)?.level === 'strict')).toBe(true);
    expect(html).not.toContain('<tr><th><span class="lvl">wire');
    expect(html).toContain('Shown: requirements of level strict.');
  });

  it('keeps the rows with a status in some column, or whose statuses differ', () => {
    expect(rows(renderComparison(two, requirements, undefined, { statuses: ['failed'] }))).toEqual(['CR-7.14']);
    expect(rows(renderComparison(two, requirements, undefined, { differ: true }))).toEqual(['CR-1.3', 'CR-7.14', 'CR-7.21', 'CR-9.3']);
    expect(rowShown('wire', ['passed', 'passed'], { differ: true })).toBe(false);
    expect(rowShown('wire', ['passed', 'not-run'], { differ: true, levels: ['wire'], statuses: ['not-run'] })).toBe(true);
  });
});

describe('nameImplementations', () => {
  const run = (directory: string, extra: Partial<RunSummary> = {}) => ({ directory, summary: { ...fixture('passing'), ...extra } as RunSummary });

  it('names a column after its directory, with its parent folder where directories share a name, never after a command line', () => {
    expect(nameImplementations([run('/r/python'), run('/r/go')])).toEqual(['python', 'go']);
    expect(nameImplementations([run('/a/reports', { target: 'python app.py' }), run('/b/reports'), run('/c/x')])).toEqual(['a/reports', 'b/reports', 'x']);
  });

  it('prefers the --name given for the run, then the name its target declared', () => {
    expect(nameImplementations([run('/a/reports', { name: 'express-port' }), run('/b/reports')], [])).toEqual(['express-port', 'reports']);
    expect(nameImplementations([run('/a/reports', { name: 'express-port' }), run('/b/reports')], ['mine', 'theirs'])).toEqual(['mine', 'theirs']);
    expect(nameImplementations([run('/a/reports'), run('/b/reports')], ['mine'])).toEqual(['mine', 'reports']);
  });
});

describe('runCompare', () => {
  const root = mkdtempSync(join(tmpdir(), 'credit402-compare-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes one page from reports directories, linking each column to its own report', () => {
    for (const [directory, name] of [['reference', 'passing'], ['round down', 'failing']] as const) {
      mkdirSync(join(root, directory));
      copyFileSync(new URL(`${name}-summary.json`, FIXTURES), join(root, directory, 'conformance-summary.json'));
    }
    writeFileSync(join(root, 'round down', 'conformance.html'), '<!DOCTYPE html>');
    const lines: string[] = [];
    const out = join(root, 'out', 'matrix.html');
    expect(runCompare([join(root, 'reference'), join(root, 'round down', 'conformance-summary.json'), '--out', out], (line) => lines.push(line))).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<a href="../round%20down/conformance.html">round down</a>');
    expect(html).toContain('href="../round%20down/conformance.html#req-CR-7.14"');
    expect(lines.join('\n')).toContain('2 implementations (reference, round down)');
  });

  it('names the columns by --name and filters the rows', () => {
    const lines: string[] = [];
    const out = join(root, 'named.html');
    expect(runCompare([join(root, 'reference'), join(root, 'round down'), '--name', 'ref', '--name', 'floor', '--status', 'failed', '--level', 'wire,strict', '--out', out], (line) => lines.push(line))).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(lines.join('\n')).toContain('2 implementations (ref, floor)');
    expect([...html.matchAll(/<tr id="req-(CR-[\d.]+)"/g)].map((match) => match[1])).toEqual(['CR-7.14']);
  });

  it('refuses more --name than directories, and an unknown level or status', () => {
    const lines: string[] = [];
    expect(runCompare([join(root, 'reference'), '--name', 'a', '--name', 'b'], (line) => lines.push(line))).toBe(2);
    expect(runCompare([join(root, 'reference'), '--level', 'loose'], (line) => lines.push(line))).toBe(2);
    expect(runCompare([join(root, 'reference'), '--status', 'green'], (line) => lines.push(line))).toBe(2);
    expect(runCompare([join(root, 'reference'), '--colour'], (line) => lines.push(line))).toBe(2);
    expect(lines.join('\n')).toMatch(/one --name per directory[\s\S]*--level must be one of wire, strict, robust; got "loose"[\s\S]*--status must be one of[\s\S]*green/);
  });

  it('fails with exit code 2 and names the directory without a summary', () => {
    const lines: string[] = [];
    expect(runCompare(['/nonexistent/run'], (line) => lines.push(line))).toBe(2);
    expect(lines.join('\n')).toContain('/nonexistent/run: no conformance-summary.json');
    expect(runCompare([], (line) => lines.push(line))).toBe(2);
  });
});
