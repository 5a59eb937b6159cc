// Unit tests of `compare`: implementations as columns, every requirement as a row, the levels on top.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nameImplementations, renderComparison, runCompare } from './compare.ts';
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

  it('has one column per implementation, in order, with its counts', () => {
    expect(html).toMatch(/<th class="impl">reference<br><span class="muted mono">node reference\/self-test\/target.ts<\/span><br><span class="ok">4 passed<\/span>[\s\S]*<th class="impl">round-down/);
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

describe('nameImplementations', () => {
  it("names a column after its directory, or after the run's target when directories share a name", () => {
    const run = (directory: string, target?: string) => ({ directory, summary: { ...fixture('passing'), target } as RunSummary });
    expect(nameImplementations([run('/r/python'), run('/r/go')])).toEqual(['python', 'go']);
    expect(nameImplementations([run('/a/reports', 'python app.py'), run('/b/reports'), run('/c/x')])).toEqual(['python app.py', 'b/reports', 'x']);
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

  it('fails with exit code 2 and names the directory without a summary', () => {
    const lines: string[] = [];
    expect(runCompare(['/nonexistent/run'], (line) => lines.push(line))).toBe(2);
    expect(lines.join('\n')).toContain('/nonexistent/run: no conformance-summary.json');
    expect(runCompare([], (line) => lines.push(line))).toBe(2);
  });
});
