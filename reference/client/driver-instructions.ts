// The instructions of the conformance kit's client driver contract (credit402-conformance, harness/docs/client-driver.md), read and validated from JSON lines.

/** One call of a `fetch` instruction. */
export interface CallInstruction {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/** How the callback answers during a `fetch` instruction: approve (with an optional top-up) or decline. */
export type CallbackInstruction = { decline: true } | { decline?: false; paymentMethodId: string; topUpAmount?: number };

/** An instruction as the driver acts on it; `unknown` for an op the contract does not name. */
export type Instruction =
  | { id: number; op: 'reset'; spendingLimit?: number }
  | { id: number; op: 'fetch'; calls: CallInstruction[]; callback: CallbackInstruction }
  | { id: number; op: 'restart' }
  | { id: number; op: 'unknown' };

/** A line read: the instruction, or why it cannot be acted on (with its id when it has one). */
export type ReadInstruction = { ok: true; instruction: Instruction } | { ok: false; id: number | null; error: string };

type Members = Record<string, unknown>;
const isObject = (value: unknown): value is Members => typeof value === 'object' && value !== null && !Array.isArray(value);

function readCall(value: unknown, at: number): CallInstruction | string {
  if (!isObject(value)) return `calls[${at}] must be an object`;
  const { url, method, headers = {}, body = null } = value;
  if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return `calls[${at}].url must be an http(s) URL`;
  if (method !== undefined && (typeof method !== 'string' || method === '')) return `calls[${at}].method must be a non-empty string`;
  if (!isObject(headers) || !Object.values(headers).every((header) => typeof header === 'string')) return `calls[${at}].headers must map names to strings`;
  if (body !== null && typeof body !== 'string') return `calls[${at}].body must be a string or null`;
  return { url, method: method ?? 'GET', headers: headers as Record<string, string>, body };
}

function readCallback(value: unknown): CallbackInstruction | string {
  if (!isObject(value)) return 'callback must be an object';
  if (value.decline === true) return { decline: true };
  const { paymentMethodId, topUpAmount } = value;
  if (typeof paymentMethodId !== 'string' || paymentMethodId === '') return 'callback must hold decline: true or a paymentMethodId string';
  if (topUpAmount !== undefined && typeof topUpAmount !== 'number') return 'callback.topUpAmount must be a number of units';
  return topUpAmount === undefined ? { paymentMethodId } : { paymentMethodId, topUpAmount };
}

function readFetch(id: number, value: Members): ReadInstruction {
  if (!Array.isArray(value.calls) || value.calls.length === 0) return { ok: false, id, error: 'calls must be a non-empty array' };
  const calls: CallInstruction[] = [];
  for (const [at, call] of value.calls.entries()) {
    const read = readCall(call, at);
    if (typeof read === 'string') return { ok: false, id, error: read };
    calls.push(read);
  }
  const callback = readCallback(value.callback);
  if (typeof callback === 'string') return { ok: false, id, error: callback };
  return { ok: true, instruction: { id, op: 'fetch', calls, callback } };
}

/** Reads one line of the kit's standard input. */
export function readInstruction(line: string): ReadInstruction {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, id: null, error: 'not a JSON line' };
  }
  if (!isObject(value) || typeof value.id !== 'number' || !Number.isFinite(value.id)) return { ok: false, id: null, error: 'an instruction is an object with a numeric id' };
  const { id, op } = value;
  if (op === 'restart') return { ok: true, instruction: { id, op } };
  if (op === 'fetch') return readFetch(id, value);
  if (op !== 'reset') return { ok: true, instruction: { id, op: 'unknown' } };
  const { spendingLimit } = value;
  if (spendingLimit === undefined) return { ok: true, instruction: { id, op } };
  if (typeof spendingLimit !== 'number' || !Number.isSafeInteger(spendingLimit) || spendingLimit < 0) {
    return { ok: false, id, error: 'spendingLimit must be a non-negative integer of units' };
  }
  return { ok: true, instruction: { id, op, spendingLimit } };
}
