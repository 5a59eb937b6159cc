// Reads the requirement IDs of spec/protocol.md: `**CR-x.y Title.**` paragraphs with their [level] and (internal)/(construction)/(client)/Deprecated markers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareIds } from './requirement-ids.ts';

/** Conformance levels, lowest first (spec §0): wire = the stripe402 source, strict = credit402's decisions, robust = §14. */
export const LEVELS = ['wire', 'strict', 'robust'] as const;

/** A conformance level. */
export type Level = (typeof LEVELS)[number];

/** One requirement of the protocol. */
export interface Requirement {
  id: string;
  title: string;
  section: number;
  /** The `[level]` marker after the title; requirements without one count as strict. */
  level: Level;
  /** Checkable only inside an implementation. */
  internal: boolean;
  /** Checked by constructing a target with a configuration. */
  construction: boolean;
  /** A requirement of clients (§16, the `(client)` marker): judged by the kit's client mode, never by a server run. */
  client: boolean;
  deprecated: boolean;
  /** §13 decisions: the IDs named after "Applied in" (ranges expanded against the spec's own IDs). */
  appliedIn: string[];
}

export const SPEC_PATH = fileURLToPath(new URL('../../spec/protocol.md', import.meta.url));

const HEADING = /^\*\*(CR-(\d+)\.(\d+)) (.+?)\*\*(.*)$/;
const LEVEL_MARKER = /^\s*\[(wire|strict|robust)\]/;
const ID = /CR-\d+\.\d+/g;
const RANGE = /(CR-\d+\.\d+)\s*(?:–|-|…|\.\.\.)\s*(CR-\d+\.\d+)/g;
export const DECISIONS_SECTION = 13;

function expandApplied(text: string, known: readonly string[]): string[] {
  const at = text.indexOf('Applied in');
  if (at === -1) return [];
  const applied = text.slice(at);
  const ids = new Set(applied.match(ID) ?? []);
  for (const [, from = '', to = ''] of applied.matchAll(RANGE)) {
    for (const id of known) if (compareIds(id, from) >= 0 && compareIds(id, to) <= 0) ids.add(id);
  }
  return [...ids].filter((id) => known.includes(id)).sort(compareIds);
}

/** Parses the requirement headings of a protocol document; throws on an ID defined twice. */
export function parseRequirements(markdown: string): Requirement[] {
  const found: Array<Requirement & { rest: string }> = [];
  for (const line of markdown.split('\n')) {
    const match = HEADING.exec(line);
    if (!match) continue;
    const [, id = '', section = '', , title = '', marked = ''] = match;
    const level = LEVEL_MARKER.exec(marked)?.[1] as Level | undefined;
    const rest = marked.replace(LEVEL_MARKER, '');
    if (found.some((requirement) => requirement.id === id)) throw new Error(`${id} is defined twice`);
    found.push({
      id,
      title: title.replace(/\.$/, '').replace(/`/g, ''),
      section: Number(section),
      level: level ?? 'strict',
      internal: /\(internal\b/.test(rest),
      construction: /\(construction\b/.test(rest),
      client: /\(client\b/.test(rest),
      deprecated: /^\s*[*_]*Deprecated\b/.test(rest),
      appliedIn: [],
      rest,
    });
  }
  const known = found.map((requirement) => requirement.id);
  return found.map(({ rest, ...requirement }) => ({
    ...requirement,
    appliedIn: requirement.section === DECISIONS_SECTION ? expandApplied(rest, known) : [],
  }));
}

/** Reads and parses spec/protocol.md (or another path). */
export function readRequirements(path: string = SPEC_PATH): Requirement[] {
  return parseRequirements(readFileSync(path, 'utf8'));
}

/** What a run judges: servers (§1–§15, `conformance`) or clients (§16, `client`). */
export type RunMode = 'server' | 'client';

/** Whether a run of `mode` judges `requirement`: a client run only the `(client)` requirements, a server run all the others. */
export function judgedInMode(requirement: Pick<Requirement, 'client'>, mode: RunMode): boolean {
  return requirement.client === (mode === 'client');
}
