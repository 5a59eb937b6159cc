// The driver contract's messages (harness/docs/client-driver.md): instructions, and replies checked member by member, never cast.

/** How the callback answers during a `fetch`: approve with a payment method (and maybe a top-up), or decline. */
export type CallbackAnswer = { paymentMethodId: string; topUpAmount?: number } | { decline: true };

/** One call of a `fetch` instruction. */
export interface CallSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/** An instruction, without its id. */
export type Instruction = { op: 'reset'; spendingLimit?: number } | { op: 'fetch'; calls: CallSpec[]; callback: CallbackAnswer } | { op: 'restart' };

/** The kinds of error a call may end with. */
const ERROR_KINDS = ['payment', 'protocol', 'limit', 'other'] as const;

/** An error a call raised, as the driver reports it. */
export interface CallError {
  kind: (typeof ERROR_KINDS)[number];
  code: string | null;
  message: string;
}

/** What one call returned to the caller. */
export interface CallResult {
  status: number | null;
  headers: Record<string, string>;
  body: string | null;
  error: CallError | null;
}

/**
 * What the callback received, once, as the driver reported it: each member the JSON value given (null when absent),
 * whatever its type. A value of the wrong type (an amount `"500"`) is what the client handed its callback, judged
 * against the client by the checks of CR-16.1, never refused as a breach of the contract.
 */
export interface CallbackRecord {
  url: unknown;
  amount: unknown;
  minTopUp: unknown;
  currency: unknown;
  publishableKey: unknown;
  error: unknown;
}

/** The reply to a `fetch`. */
export interface FetchReply {
  results: CallResult[];
  callbacks: CallbackRecord[];
}

/** A reply that breaks the contract; the message says what is wrong. */
export class MalformedReply extends Error {
  override name = 'MalformedReply';
}

type Json = Record<string, unknown>;

function object(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedReply(`${where} must be a JSON object; got ${JSON.stringify(value)}`);
  return value as Json;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedReply(`${where} must be an array; got ${JSON.stringify(value)}`);
  return value;
}

function nullable<T>(value: unknown, where: string, is: (value: unknown) => value is T, what: string): T | null {
  if (value === null || value === undefined) return null;
  if (!is(value)) throw new MalformedReply(`${where} must be ${what} or null; got ${JSON.stringify(value)}`);
  return value;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStatus = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;

function headers(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  const record = object(value, where);
  const result: Record<string, string> = {};
  for (const [name, text] of Object.entries(record)) {
    if (typeof text !== 'string') throw new MalformedReply(`${where}.${name} must be a string; got ${JSON.stringify(text)}`);
    result[name.toLowerCase()] = text;
  }
  return result;
}

function callError(value: unknown, where: string): CallError | null {
  if (value === null || value === undefined) return null;
  const record = object(value, where);
  const kind = record.kind;
  if (!(ERROR_KINDS as readonly unknown[]).includes(kind)) throw new MalformedReply(`${where}.kind must be one of ${ERROR_KINDS.join(', ')}; got ${JSON.stringify(kind)}`);
  const message = record.message;
  if (typeof message !== 'string') throw new MalformedReply(`${where}.message must be a string; got ${JSON.stringify(message)}`);
  return { kind: kind as CallError['kind'], code: nullable(record.code, `${where}.code`, isString, 'a string'), message };
}

function callResult(value: unknown, where: string): CallResult {
  const record = object(value, where);
  const result = {
    status: nullable(record.status, `${where}.status`, isStatus, 'an HTTP status'),
    headers: headers(record.headers, `${where}.headers`),
    body: nullable(record.body, `${where}.body`, isString, 'a string'),
    error: callError(record.error, `${where}.error`),
  };
  if ((result.status === null) === (result.error === null)) throw new MalformedReply(`${where} must have either a status or an error`);
  return result;
}

/** A callback record: a JSON object (the contract's shape), its members kept as given, absent ones null. */
function callbackRecord(value: unknown, where: string): CallbackRecord {
  const record = object(value, where);
  const given = (member: keyof CallbackRecord): unknown => record[member] ?? null;
  return { url: given('url'), amount: given('amount'), minTopUp: given('minTopUp'), currency: given('currency'), publishableKey: given('publishableKey'), error: given('error') };
}

/** Reads the reply to a `fetch` of `calls` calls. */
export function parseFetchReply(reply: Json, calls: number): FetchReply {
  const results = list(reply.results, 'results').map((result, index) => callResult(result, `results[${index}]`));
  if (results.length !== calls) throw new MalformedReply(`results has ${results.length} entries for ${calls} calls`);
  return { results, callbacks: list(reply.callbacks, 'callbacks').map((record, index) => callbackRecord(record, `callbacks[${index}]`)) };
}

/** Reads the reply to `reset` or `restart`: `{"ok": true}`. */
export function parseOkReply(reply: Json): void {
  if (reply.ok !== true) throw new MalformedReply(`the reply must be {"id": N, "ok": true}; got ${JSON.stringify(reply)}`);
}

/** Reads a reply line: a JSON object with the expected numeric id. */
export function parseReplyLine(line: string, id: number): Json {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new MalformedReply(`not a JSON line: ${JSON.stringify(line.slice(0, 200))}`);
  }
  const reply = object(value, 'the reply');
  if (reply.id !== id) throw new MalformedReply(`the reply's id is ${JSON.stringify(reply.id)}, the instruction's ${id}`);
  return reply;
}
