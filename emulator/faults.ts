// Injected faults: the next N matching API requests fail with a 500, a 429, a timeout, a reset, or a delay.
import { newId } from './ids.ts';
import type { ActiveFault, FaultKind, FaultSpec } from './control-types.ts';

const KINDS: readonly FaultKind[] = ['error500', 'rateLimit429', 'timeout', 'reset', 'delay'];
const DEFAULT_DELAY_MS: Partial<Record<FaultKind, number>> = { timeout: 30_000, delay: 1_000 };

/** Validates a fault spec from the control API; returns an error message or the normalized fault. */
export function parseFaultSpec(body: unknown): ActiveFault | string {
  if (typeof body !== 'object' || body === null) return 'body must be a JSON object';
  const spec = body as Partial<Record<keyof FaultSpec, unknown>>;
  if (typeof spec.path !== 'string' || !spec.path.startsWith('/')) return 'path must be a string starting with /';
  if (!KINDS.includes(spec.kind as FaultKind)) return `kind must be one of ${KINDS.join(', ')}`;
  if (spec.method !== undefined && spec.method !== 'GET' && spec.method !== 'POST') return 'method must be GET or POST';
  const count = spec.count ?? 1;
  if (!Number.isInteger(count) || (count as number) < 1) return 'count must be a positive integer';
  if (spec.match !== undefined && !isStringRecord(spec.match)) return 'match must be an object of string values';
  const kind = spec.kind as FaultKind;
  const delayMs = spec.delayMs ?? DEFAULT_DELAY_MS[kind];
  if (delayMs !== undefined && (!Number.isInteger(delayMs) || (delayMs as number) < 0)) return 'delayMs must be a non-negative integer';
  return {
    id: newId('flt'),
    path: spec.path,
    kind,
    count: count as number,
    remaining: count as number,
    ...(spec.method ? { method: spec.method } : {}),
    ...(delayMs !== undefined ? { delayMs: delayMs as number } : {}),
    ...(spec.match !== undefined ? { match: spec.match as Record<string, string> } : {}),
  };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}

function matches(fault: ActiveFault, method: string, path: string, params: Record<string, unknown>): boolean {
  if (fault.method !== undefined && fault.method !== method) return false;
  if (!path.startsWith(fault.path)) return false;
  return Object.entries(fault.match ?? {}).every(([name, value]) => params[name] === value);
}

export class FaultInjector {
  #faults: ActiveFault[] = [];

  add(fault: ActiveFault): ActiveFault {
    this.#faults.push(fault);
    return { ...fault };
  }

  list(): ActiveFault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }

  /** Consumes one use of the oldest fault matching the request, if any. */
  take(method: string, path: string, params: Record<string, unknown> = {}): ActiveFault | undefined {
    const fault = this.#faults.find((f) => matches(f, method, path, params));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return { ...fault };
  }
}
