// Unit tests of the spec parser on small fixture documents.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRequirements, readRequirements, SPEC_PATH as SPEC_FILE } from './spec-requirements.ts';

const SPEC = `# protocol
**CR-0.9 Not a heading** inside text is ignored when not at the start of a line? It is at the start, so it counts.

Text mentioning CR-1.1 is not a definition.

**CR-1.1 Target.** The target is the implementation.

**CR-2.3 Validation at construction.** [strict] (construction) A target MUST validate.

**CR-6.5 Price zero.** [wire] *Deprecated 2025-03-01, replaced by CR-6.8.*

**CR-7.24 Atomic credit.** Steps 8–10 as one operation. (internal; observable consequences: CR-7.22.)

**CR-7.25 \`ERR_X\` code.** Untagged.

**CR-13.1 Member names.** (seed §2) Names. Applied in CR-1.1, CR-2.1–CR-2.4, CR-7.24.
`;

describe('parseRequirements', () => {
  const requirements = parseRequirements(SPEC);
  const byId = new Map(requirements.map((requirement) => [requirement.id, requirement]));

  it('finds each bold ID heading once, in document order, with its title', () => {
    expect(requirements.map((requirement) => requirement.id)).toEqual(['CR-0.9', 'CR-1.1', 'CR-2.3', 'CR-6.5', 'CR-7.24', 'CR-7.25', 'CR-13.1']);
    expect(byId.get('CR-1.1')).toMatchObject({ title: 'Target', section: 1, internal: false, construction: false, deprecated: false });
    expect(byId.get('CR-7.25')?.title).toBe('ERR_X code');
  });

  it('reads the (construction), (internal …) and Deprecated markers', () => {
    expect(byId.get('CR-2.3')).toMatchObject({ construction: true, internal: false });
    expect(byId.get('CR-7.24')).toMatchObject({ internal: true, construction: false });
    expect(byId.get('CR-6.5')).toMatchObject({ deprecated: true });
  });

  it('expands the "Applied in" list of a §13 decision against the known IDs', () => {
    expect(byId.get('CR-13.1')?.appliedIn).toEqual(['CR-1.1', 'CR-2.3', 'CR-7.24']);
    expect(byId.get('CR-7.24')?.appliedIn).toEqual([]);
  });

  it('rejects an ID defined twice', () => {
    expect(() => parseRequirements('**CR-1.1 A.** x\n\n**CR-1.1 B.** y\n')).toThrow(/CR-1.1 is defined twice/);
  });
});

describe('levels', () => {
  it('reads the [level] marker before the other markers; an unmarked requirement counts as strict', () => {
    const byId = new Map(parseRequirements(SPEC).map((requirement) => [requirement.id, requirement]));
    expect(byId.get('CR-2.3')).toMatchObject({ level: 'strict', construction: true });
    expect(byId.get('CR-6.5')).toMatchObject({ level: 'wire', deprecated: true });
    expect(byId.get('CR-1.1')?.level).toBe('strict');
  });

  it('spec/protocol.md gives every requirement its level: decisions (§13) strict, the robustness profile (§14) robust', () => {
    const text = readFileSync(SPEC_FILE, 'utf8');
    const unmarked = [...text.matchAll(/^\*\*(CR-\d+\.\d+) [^*]+\*\*(?! \[(wire|strict|robust)\])/gm)].map((match) => match[1]);
    expect(unmarked).toEqual([]);
    const requirements = readRequirements();
    expect(requirements.filter((requirement) => requirement.section === 13 && requirement.level !== 'strict')).toEqual([]);
    expect(requirements.filter((requirement) => requirement.section === 14 && requirement.level !== 'robust')).toEqual([]);
    expect(requirements.filter((requirement) => requirement.section < 13 && requirement.level === 'robust')).toEqual([]);
  });
});
