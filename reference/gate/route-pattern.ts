// Route-key paths with named segments and a final `*` (spec CR-4.11–CR-4.14): parsing, matching and specificity.
import { Credit402ConfigError } from '../config/config-error.ts';

/** One segment of a route pattern: literal text, a named segment (`:id`) or the final wildcard (`*`). */
export type RouteSegment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'named'; readonly name: string }
  | { readonly kind: 'wildcard' };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RANK = { literal: 0, named: 1, wildcard: 2 } as const;

/**
 * The segments of a route key's path when it is a pattern (a segment starting with `:`, or a final `*`), undefined
 * for an exact path. Throws `ERR_ROUTE_PATTERN` for a `:` segment without a valid name, a name used twice, or a `*`
 * anywhere but as the whole last segment (CR-4.11).
 */
export function parsePattern(key: string, path: string): readonly RouteSegment[] | undefined {
  if (!path.includes(':') && !path.includes('*')) return undefined;
  const parts = path.slice(1).split('/');
  const names = new Set<string>();
  const segments = parts.map((part, index): RouteSegment => {
    if (part === '*' && index === parts.length - 1) return { kind: 'wildcard' };
    if (part.includes('*')) throw patternError(key, `"*" is allowed only as the whole last segment ("/files/*"), got the segment "${part}"`);
    if (part.includes(':') && !part.startsWith(':')) throw patternError(key, `":" may only start a named segment ("/users/:id"), got the segment "${part}"`);
    if (!part.startsWith(':')) return { kind: 'literal', text: part };
    const name = part.slice(1);
    if (!NAME.test(name)) throw patternError(key, `a named segment is ":" and a name of letters, digits and "_" not starting with a digit, got "${part}"`);
    if (names.has(name)) throw patternError(key, `the name "${name}" is used twice`);
    names.add(name);
    return { kind: 'named', name };
  });
  return segments.some((segment) => segment.kind !== 'literal') ? segments : undefined;
}

function patternError(key: string, why: string): Credit402ConfigError {
  return new Credit402ConfigError('ERR_ROUTE_PATTERN', `route "${key}": ${why}`);
}

/**
 * Whether a request path (CR-4.2) matches the pattern (CR-4.12): a literal segment equals the path's segment, a named
 * segment matches one non-empty segment (any characters but `/`, so `%2F` stays inside it), and a final `*` matches
 * the rest of the path, possibly empty, but not a missing `/` (`/files/*` matches `/files/` and `/files/a/b`, not `/files`).
 */
export function matchesPattern(segments: readonly RouteSegment[], path: string): boolean {
  if (!path.startsWith('/')) return false;
  const parts = path.slice(1).split('/');
  const last = segments[segments.length - 1];
  const wildcard = last?.kind === 'wildcard';
  if (wildcard ? parts.length < segments.length : parts.length !== segments.length) return false;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as RouteSegment;
    const part = parts[index] as string;
    if (segment.kind === 'literal' ? part !== segment.text : segment.kind === 'named' && part === '') return false;
  }
  return true;
}

/**
 * Orders two patterns most specific first (CR-4.13): segment by segment from the left, a literal segment before a
 * named one before `*`; at equal kinds, the longer pattern first, then literal text. Zero only for the same shape
 * (same kinds, same literals, names aside), which two keys of one method may not have.
 */
export function compareSpecificity(a: readonly RouteSegment[], b: readonly RouteSegment[]): number {
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index++) {
    const left = a[index] as RouteSegment;
    const right = b[index] as RouteSegment;
    if (left.kind !== right.kind) return RANK[left.kind] - RANK[right.kind];
  }
  if (a.length !== b.length) return b.length - a.length;
  for (let index = 0; index < shared; index++) {
    const left = a[index] as RouteSegment;
    const right = b[index] as RouteSegment;
    if (left.kind === 'literal' && right.kind === 'literal' && left.text !== right.text) return left.text < right.text ? -1 : 1;
  }
  return 0;
}

/** The parameters a matching request path gives a pattern: each named segment by name, the wildcard's rest as `*`. */
export function patternParams(segments: readonly RouteSegment[], path: string): Record<string, string> {
  const parts = path.slice(1).split('/');
  const params: Record<string, string> = {};
  segments.forEach((segment, index) => {
    if (segment.kind === 'named') params[segment.name] = parts[index] ?? '';
    if (segment.kind === 'wildcard') params['*'] = parts.slice(index).join('/');
  });
  return params;
}
