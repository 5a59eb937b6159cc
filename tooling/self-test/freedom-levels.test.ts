// The latitudes of the spec (Appendix C) are freedoms the kit respects: a target that takes every one a level grants claims that level, and a higher level fails it only on the requirements that remove them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing/kit.ts';
import { EXERCISED as WIRE_FREEDOMS, FREEDOM_METADATA_KEY, FREEDOM_SERVICE_NAME } from './freedom-target.ts';
import { failedRequirements, runKit } from './run-kit.ts';
import { EXERCISED as STRICT_FREEDOMS } from './strict-freedom.ts';

const LEVELS = ['wire', 'strict', 'robust'] as const;
type Level = (typeof LEVELS)[number];

/** One row of Appendix C. */
interface Latitude {
  key: string;
  requirement: string;
  level: Level;
  /** The level that removes it and the requirements that do; undefined when no level does. */
  removed?: { level: Level; ids: string[] };
  seenBy: string;
}

const SPEC = readFileSync(join(REPO_ROOT, 'spec/protocol.md'), 'utf8');
const ROW = /^\| (L-\d+) \| (CR-\d+\.\d+) \| (wire|strict|robust) \| (?:(strict|robust): ((?:CR-\d+\.\d+(?:, )?)+)|—) \| ([a-zA-Z]+) \| .+ \|$/;

/** The rows of Appendix C; throws on a row it cannot read, so that every latitude is judged. */
function readLatitudes(markdown: string): Latitude[] {
  const appendix = markdown.slice(markdown.indexOf('\n## Appendix C'));
  return appendix
    .split('\n')
    .filter((line) => line.startsWith('| L-'))
    .map((line) => {
      const match = ROW.exec(line);
      if (!match) throw new Error(`Appendix C: cannot read the row ${line}`);
      const [, key = '', requirement = '', level = 'wire', removedLevel, removedIds = '', seenBy = ''] = match;
      const removed = removedLevel === undefined ? undefined : { level: removedLevel as Level, ids: removedIds.split(', ') };
      return { key, requirement, level: level as Level, ...(removed ? { removed } : {}), seenBy };
    });
}

const LATITUDES = readLatitudes(SPEC);
const SPEC_IDS = new Set([...SPEC.matchAll(/^\*\*(CR-\d+\.\d+) /gm)].map((match) => match[1]));
const keysOf = (latitudes: readonly Latitude[]) => latitudes.map((latitude) => latitude.key).sort();

/** The latitudes a level grants and the next level removes that a run of `seenBy` sees: what a freedom target must take. */
const taken = (level: Level, removedBy: Level, seenBy: string) =>
  LATITUDES.filter((latitude) => latitude.level === level && (latitude.removed?.level ?? removedBy) === removedBy && latitude.seenBy === seenBy);

/** The requirements that remove the latitudes a target takes: the only ones a run of the removing level may fail it on. */
const removing = (keys: readonly string[]) => new Set(LATITUDES.filter((latitude) => keys.includes(latitude.key)).flatMap((latitude) => latitude.removed?.ids ?? []));

const reports = mkdtempSync(join(tmpdir(), 'credit402-freedom-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

describe('Appendix C of the spec, the latitudes', () => {
  it('numbers its rows L-1 to L-n in order, each granted by a requirement of the spec and removed, if at all, by a higher level', () => {
    expect(LATITUDES.length).toBeGreaterThan(0);
    expect(LATITUDES.map((latitude) => latitude.key)).toEqual(LATITUDES.map((_, index) => `L-${index + 1}`));
    for (const { key, requirement, level, removed } of LATITUDES) {
      expect(SPEC_IDS.has(requirement), `${key}: ${requirement} is a requirement of the spec`).toBe(true);
      for (const id of removed?.ids ?? []) expect(SPEC_IDS.has(id), `${key}: ${id} is a requirement of the spec`).toBe(true);
      if (removed) expect(LEVELS.indexOf(removed.level), `${key} is removed by a level above ${level}`).toBeGreaterThan(LEVELS.indexOf(level));
    }
  });

  it('has every latitude that wire grants, strict or no level removes and a run sees taken by the freedom target, which takes no other', () => {
    const wire = [...taken('wire', 'strict', 'run'), ...LATITUDES.filter((latitude) => latitude.level === 'wire' && latitude.removed === undefined && latitude.seenBy === 'run')];
    expect(Object.keys(WIRE_FREEDOMS).sort()).toEqual(keysOf([...new Set(wire)]));
  });

  it('has every latitude that strict grants, robust removes and a robustness run sees taken by the strict-freedom target, which takes no other', () => {
    expect(Object.keys(STRICT_FREEDOMS).sort()).toEqual(keysOf(taken('strict', 'robust', 'robustness')));
  });
});

/** What the freedom target declares: the service-defined values it uses (L-46). */
const DECLARED = ['--declare', `serviceName=${FREEDOM_SERVICE_NAME}`, '--declare', `customerMetadataKey=${FREEDOM_METADATA_KEY}`];

/**
 * The strict requirements a strict run fails the freedom target on, each the removing requirement of one of its
 * latitudes: the decoding rules (L-1 to L-6: CR-3.4, CR-13.10), payload validation (L-7 to L-12: CR-3.6, CR-3.7,
 * CR-3.8, CR-13.19), routing (L-13 to L-17: CR-4.8, CR-4.9, CR-4.12, CR-4.13, CR-4.14, CR-13.25), a failed handler's
 * price given back (L-18: CR-13.27), bare challenges (L-19, L-20: CR-13.2, CR-13.13), one balance (L-21: CR-6.8), no
 * maximum top-up (L-22: CR-9.4), the processor's messages (L-23 to L-25: CR-13.24, CR-13.37, CR-13.35), any payment
 * method id (L-26: CR-7.27), the PaymentIntent without credit402's key and metadata (L-27: CR-7.16, CR-7.17). Its
 * request ids (L-11: CR-6.9) and ambiguous targets (L-16: CR-4.10) are judged only in scenarios that an earlier check
 * fails first; no scenario judges the customer's idempotency key (L-28) or provokes the step-11 race (L-29).
 */
const WIRE_FREEDOMS_BREAK = [
  'CR-3.4', 'CR-3.6', 'CR-3.7', 'CR-3.8', 'CR-4.8', 'CR-4.9', 'CR-4.12', 'CR-4.13', 'CR-4.14', 'CR-6.8', 'CR-7.16', 'CR-7.17', 'CR-7.27',
  'CR-9.4', 'CR-13.2', 'CR-13.10', 'CR-13.13', 'CR-13.19', 'CR-13.24', 'CR-13.25', 'CR-13.27', 'CR-13.35', 'CR-13.37',
];

describe('a target that takes every latitude the wire level grants (freedom-target.ts)', () => {
  const kit = (name: string, ...args: string[]) => runKit('freedom', join(reports, name), [...DECLARED, ...args]);

  it('claims the wire level with 0 failures', async () => {
    const { code, output } = await kit('wire', '--level', 'wire');
    expect(code, output).toBe(0);
    expect(output).toMatch(/^ {2}wire +(\d+)\/\1 scenarios passed: claimed$/m);
    expect(output.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(output).not.toMatch(/inconclusive/);
  }, 120_000);

  it('fails a strict run exactly on the requirements that remove its latitudes, never on a wire one, and still claims wire', async () => {
    const { code, output } = await kit('strict', '--level', 'strict');
    expect(code, output).toBe(1);
    const failed = failedRequirements(output);
    expect(failed, output).toEqual(WIRE_FREEDOMS_BREAK.map((id) => `${id} strict`));
    const removers = removing(Object.keys(WIRE_FREEDOMS));
    for (const id of WIRE_FREEDOMS_BREAK) expect(removers.has(id), `${id} removes a latitude the target takes`).toBe(true);
    expect(output).toMatch(/^ {2}wire +(\d+)\/\1 scenarios passed: claimed$/m);
    expect(output).toMatch(/^ {2}wire +\d+ passed, 0 failed/m);
  }, 120_000);
});

/**
 * The robust requirements a robustness run fails the strict-freedom target on: its webhook endpoint settles nothing
 * (L-41, L-42: CR-14.2, CR-14.3, CR-14.4) and a card's first payments are not serialised (L-43: CR-14.7, and the retry
 * of CR-14.8 that overlaps the abandoned attempt).
 */
const STRICT_FREEDOMS_BREAK = ['CR-14.2', 'CR-14.3', 'CR-14.4', 'CR-14.7', 'CR-14.8'];

describe('a target that takes every latitude the strict level grants and the robust level removes (strict-freedom.ts)', () => {
  it('claims the strict level and fails a robustness run only on robust requirements', async () => {
    const { code, output } = await runKit('strict-freedom', join(reports, 'robust'), ['--level', 'robust', '--declare', 'robustness=true']);
    expect(code, output).toBe(1);
    expect(failedRequirements(output), output).toEqual(STRICT_FREEDOMS_BREAK.map((id) => `${id} robust`));
    expect(output).toMatch(/^ {2}wire +(\d+)\/\1 scenarios passed: claimed$/m);
    expect(output).toMatch(/^ {2}strict +(\d+)\/\1 scenarios passed: claimed$/m);
  }, 120_000);
});
