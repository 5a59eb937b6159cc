// `expand[]`: replaces id strings with the objects they name, through lists and nested paths, like Stripe.
import { invalidRequest } from './errors.ts';
import type { StoredObject } from './objects.ts';

type Json = Record<string, unknown>;
type Finder = (id: string) => StoredObject | undefined;

/** Expandable fields per object type. */
const EXPANDABLE: Record<string, readonly string[]> = {
  payment_intent: ['customer', 'payment_method', 'latest_charge'],
  charge: ['customer', 'payment_intent'],
  customer: ['invoice_settings.default_payment_method'],
  payment_method: ['customer'],
  refund: ['charge', 'payment_intent'],
  dispute: ['charge', 'payment_intent'],
};
const MAX_DEPTH = 4;

const cannotExpand = (path: string) => invalidRequest(`This property cannot be expanded (${path}).`, { param: 'expand' });

function expandPath(obj: Json, segments: string[], path: string, find: Finder): void {
  if (obj.object === 'list' || obj.object === 'search_result') {
    if (segments[0] !== 'data' || segments.length < 2) throw cannotExpand(path);
    for (const item of obj.data as Json[]) expandPath(item, segments.slice(1), path, find);
    return;
  }
  const field = (EXPANDABLE[String(obj.object)] ?? []).map((f) => f.split('.')).find((f) => f.every((s, i) => segments[i] === s));
  if (!field) throw cannotExpand(path);
  let parent = obj;
  for (const segment of field.slice(0, -1)) parent = parent[segment] as Json;
  const leaf = field.at(-1) as string;
  const found = typeof parent[leaf] === 'string' ? find(parent[leaf]) : undefined;
  if (found) parent[leaf] = structuredClone(found);
  const rest = segments.slice(field.length);
  const value = parent[leaf];
  if (rest.length > 0 && typeof value === 'object' && value !== null) expandPath(value as Json, rest, path, find);
}

/** A copy of `value` with each `expand[]` path expanded; throws 400 for a path that cannot be. */
export function expandObject<T extends object>(value: T, paths: readonly string[] | undefined, find: Finder): T {
  if (!paths || paths.length === 0) return value;
  const copy = structuredClone(value) as Json;
  for (const path of paths) {
    const segments = path.split('.');
    if (segments.filter((s) => s !== 'data').length > MAX_DEPTH) {
      throw invalidRequest(`You cannot expand more than ${MAX_DEPTH} levels of a property. Property: ${path}`, { param: 'expand' });
    }
    expandPath(copy, segments, path, find);
  }
  return copy as T;
}
