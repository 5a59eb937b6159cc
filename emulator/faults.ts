// Fault specs: validating what `POST /_emulator/faults` receives, and deciding which API requests a fault hits.
import { newId } from './ids.ts';
import type { ActiveFault, FaultKind, FaultSpec } from './control-types.ts';

const KINDS: readonly FaultKind[] = ['error500', 'rateLimit429', 'timeout', 'reset', 'delay', 'barrier'];
const DEFAULT_DELAY_MS: Partial<Record<FaultKind, number>> = { timeout: 30_000, delay: 1_000, barrier: 1_500 };

/** The parts of an API request a fault can be scoped by. */
export interface FaultTarget {
  method: string;
  path: string;
  params: Record<string, unknown>;
  idempotencyKey?: string | undefined;
}

const isStringRecord = (value: unknown, nonEmpty = false): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string' && (!nonEmpty || v !== ''));

/** Validates a fault spec from the control API; returns an error message or the normalized fault. */
export function parseFaultSpec(body: unknown): ActiveFault | string {
  if (typeof body !== 'object' || body === null) return 'body must be a JSON object';
  const spec = body as Partial<Record<keyof FaultSpec, unknown>>;
  if (typeof spec.path !== 'string' || !spec.path.startsWith('/')) return 'path must be a string starting with /';
  if (!KINDS.includes(spec.kind as FaultKind)) return `kind must be one of ${KINDS.join(', ')}`;
  if (spec.method !== undefined && spec.method !== 'GET' && spec.method !== 'POST') return 'method must be GET or POST';
  const count = spec.count ?? 1;
  if (!Number.isInteger(count) || (count as number) < 1) return 'count must be a positive integer';
  if (spec.untilRemoved !== undefined && typeof spec.untilRemoved !== 'boolean') return 'untilRemoved must be true or false';
  if (spec.untilRemoved === true && spec.kind === 'barrier') return 'a barrier holds count requests; untilRemoved does not apply';
  if (spec.match !== undefined && !isStringRecord(spec.match)) return 'match must be an object of string values';
  if (spec.contains !== undefined && !isStringRecord(spec.contains, true)) return 'contains must be an object of non-empty string values';
  if (spec.idempotencyKey !== undefined && typeof spec.idempotencyKey !== 'string') return 'idempotencyKey must be a string';
  const kind = spec.kind as FaultKind;
  const delayMs = spec.delayMs ?? DEFAULT_DELAY_MS[kind];
  if (delayMs !== undefined && (!Number.isInteger(delayMs) || (delayMs as number) < 0)) return 'delayMs must be a non-negative integer';
  const untilRemoved = spec.untilRemoved === true;
  return {
    id: newId('flt'),
    path: spec.path,
    kind,
    count: count as number,
    remaining: untilRemoved ? null : (count as number),
    fired: 0,
    active: true,
    ...(untilRemoved ? { untilRemoved } : {}),
    ...(spec.method ? { method: spec.method } : {}),
    ...(delayMs !== undefined ? { delayMs: delayMs as number } : {}),
    ...(spec.match !== undefined ? { match: spec.match as Record<string, string> } : {}),
    ...(spec.contains !== undefined ? { contains: spec.contains as Record<string, string> } : {}),
    ...(spec.idempotencyKey !== undefined ? { idempotencyKey: spec.idempotencyKey as string } : {}),
  };
}

/** A param as text: strings as they are, anything else as its JSON (absent: empty). */
const asText = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** Whether the fault's method, path prefix, `match`, `contains` and `idempotencyKey` all fit the request. */
export function faultMatches(fault: FaultSpec, request: FaultTarget): boolean {
  if (fault.method !== undefined && fault.method !== request.method) return false;
  if (!request.path.startsWith(fault.path)) return false;
  if (fault.idempotencyKey !== undefined && fault.idempotencyKey !== request.idempotencyKey) return false;
  if (!Object.entries(fault.match ?? {}).every(([name, value]) => request.params[name] === value)) return false;
  return Object.entries(fault.contains ?? {}).every(([name, text]) => asText(request.params[name]).includes(text));
}
