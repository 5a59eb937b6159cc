// The run's mode in the reports: a client run lists the (client) requirements only, a server run all the others.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderComparison } from './compare.ts';
import { renderHtmlReport } from './html-report.ts';
import type { RunSummary } from './run-summary.ts';
import { judgedInMode, parseRequirements, readRequirements } from './spec-requirements.ts';

const passing = JSON.parse(readFileSync(new URL('./fixtures/passing-summary.json', import.meta.url), 'utf8')) as RunSummary;
const requirements = readRequirements();
const matrixIds = (html: string): string[] => [...html.matchAll(/<tr id="req-(CR-\d+\.\d+)"/g)].map((match) => match[1] ?? '');

const clientRun: RunSummary = {
  mode: 'client',
  runLevel: 'strict',
  passed: 1,
  failed: 0,
  inconclusive: 0,
  notRun: 0,
  runErrors: [],
  levels: [{ level: 'wire', passed: 1, total: 1, inconclusive: 0, claimed: true }],
  requirements: [{ id: 'CR-16.1', level: 'wire', passed: 1, failed: 0, notReached: 0, inconclusive: 0 }],
  scenarios: [],
};

describe('the (client) marker', () => {
  it('is read from the spec, and a mode judges its own requirements only', () => {
    const [client, server] = parseRequirements('**CR-16.1 Reading.** [wire] (client) A client MUST.\n**CR-5.1 Challenge.** [wire] A target MUST.');
    expect(client).toMatchObject({ id: 'CR-16.1', client: true, level: 'wire' });
    expect(server).toMatchObject({ id: 'CR-5.1', client: false });
    expect([judgedInMode(client ?? { client: false }, 'client'), judgedInMode(server ?? { client: true }, 'client')]).toEqual([true, false]);
    expect(requirements.filter((requirement) => requirement.client).map((requirement) => requirement.id)).toEqual(Array.from({ length: 17 }, (_, index) => `CR-16.${index + 1}`));
  });
});

describe('the HTML report and compare by mode', () => {
  it('a server run lists no client requirement, not even as not run', () => {
    const ids = matrixIds(renderHtmlReport(passing, requirements));
    expect(ids).toContain('CR-5.1');
    expect(ids.filter((id) => id.startsWith('CR-16.'))).toEqual([]);
  });

  it('a client run lists the client requirements only, and says it is a client report', () => {
    const html = renderHtmlReport(clientRun, requirements);
    expect(matrixIds(html).every((id) => id.startsWith('CR-16.'))).toBe(true);
    expect(matrixIds(html)).toHaveLength(17);
    expect(html).toContain('credit402 client conformance report');
  });

  it('compare keeps the rows of the runs\' mode', () => {
    expect(matrixIds(renderComparison([{ name: 'client', summary: clientRun }], requirements))).toHaveLength(17);
    expect(matrixIds(renderComparison([{ name: 'server', summary: passing }], requirements)).some((id) => id.startsWith('CR-16.'))).toBe(false);
  });
});
