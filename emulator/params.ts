// Decodes Stripe's form/query encoding (`a[b][c]=v`, `list[]=x`, `list[0]=x`) into nested maps and lists.
import { invalidRequest } from './errors.ts';

/** A decoded parameter value: a string, a list, or a nested map. */
export type ParamValue = string | ParamValue[] | Params;
export interface Params {
  [key: string]: ParamValue;
}

interface Node {
  [key: string]: string | Node;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 8;

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw invalidRequest(`Invalid URL encoding: ${s}`);
  }
};

/** Splits `a[b][]` into `['a', 'b', '']`. */
function keyPath(key: string): string[] {
  const open = key.indexOf('[');
  if (open < 0) return [key];
  if (open === 0) throw invalidRequest(`Invalid parameter name: ${key}`);
  const segments = [key.slice(0, open)];
  const re = /\[([^\]]*)\]/y;
  re.lastIndex = open;
  for (let match = re.exec(key); match !== null; match = re.exec(key)) {
    segments.push(match[1] ?? '');
    if (re.lastIndex === key.length) return segments;
  }
  throw invalidRequest(`Invalid parameter name: ${key}`);
}

function assign(root: Node, segments: string[], value: string, key: string): void {
  if (segments.length > MAX_DEPTH) throw invalidRequest(`Parameter nested too deeply: ${key}`);
  let node = root;
  segments.forEach((raw, i) => {
    const segment = raw === '' ? String(Object.keys(node).length) : raw;
    if (FORBIDDEN_KEYS.has(segment)) throw invalidRequest(`Invalid parameter name: ${key}`);
    const last = i === segments.length - 1;
    const existing = node[segment];
    if (last) {
      if (typeof existing === 'object') throw invalidRequest(`Invalid parameter: ${key} conflicts with another parameter`);
      node[segment] = value;
      return;
    }
    if (typeof existing === 'string') throw invalidRequest(`Invalid parameter: ${key} conflicts with another parameter`);
    if (existing === undefined) {
      const child: Node = {};
      node[segment] = child;
      node = child;
    } else {
      node = existing;
    }
  });
}

/** True when a map's keys are exactly `0..n-1`, i.e. it was written as a list. */
function isIndexMap(map: object): boolean {
  const keys = Object.keys(map);
  return keys.length > 0 && keys.every((k, i) => k === String(i));
}

function normalize(node: string | Node): ParamValue {
  if (typeof node === 'string') return node;
  const entries = Object.entries(node).map(([k, v]) => [k, normalize(v)] as const);
  return isIndexMap(node) ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}

/** Parses an `application/x-www-form-urlencoded` body or a query string (without `?`). */
export function parseParams(encoded: string): Params {
  const root: Node = {};
  for (const pair of encoded.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    if (key === '') continue;
    assign(root, keyPath(key), value, key);
  }
  return Object.fromEntries(Object.entries(root).map(([k, v]) => [k, normalize(v)]));
}
