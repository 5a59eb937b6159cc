// Queries over processor journal entries: retrievals, customer calls, PaymentIntent creations, one-line descriptions.
import type { JournalEntry } from 'credit402-stripe-emulator';

export type { JournalEntry };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Retrievals of payment methods (`GET /v1/payment_methods/<id>`), optionally of one id. */
export const paymentMethodRetrievals = (entries: JournalEntry[], id?: string): JournalEntry[] =>
  entries.filter((e) => e.method === 'GET' && e.path.startsWith('/v1/payment_methods/') && (id === undefined || e.path === `/v1/payment_methods/${id}`));

/** Every customer call: search, creation, retrieval, update. */
export const customerRequests = (entries: JournalEntry[]): JournalEntry[] => entries.filter((e) => e.path.startsWith('/v1/customers'));

/** Customer searches (`GET /v1/customers/search`). */
export const customerSearches = (entries: JournalEntry[]): JournalEntry[] =>
  entries.filter((e) => e.method === 'GET' && e.path === '/v1/customers/search');

/** Customer creations (`POST /v1/customers`). */
export const customerCreations = (entries: JournalEntry[]): JournalEntry[] => entries.filter((e) => e.method === 'POST' && e.path === '/v1/customers');

/** PaymentIntent creation requests, replays of an idempotency key included. */
export const paymentIntentCreations = (entries: JournalEntry[]): JournalEntry[] =>
  entries.filter((e) => e.method === 'POST' && e.path === '/v1/payment_intents');

const QUOTED = String.raw`'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"`;
const METADATA_QUERY = new RegExp(String.raw`^\s*metadata\[(?:${QUOTED})\]\s*:\s*(?:${QUOTED})\s*$`);
const unescapeQuoted = (text: string): string => text.replace(/\\(.)/g, '$1');

/** The key and value of a one-clause metadata search query, in single or double quotes (`metadata['k']:'v'`, `metadata["k"]:"v"`). */
export function parseMetadataQuery(query: unknown): { key: string; value: string } | undefined {
  const match = typeof query === 'string' ? METADATA_QUERY.exec(query) : null;
  if (!match) return undefined;
  const [, singleKey, doubleKey, singleValue, doubleValue] = match;
  return { key: unescapeQuoted(singleKey ?? doubleKey ?? ''), value: unescapeQuoted(singleValue ?? doubleValue ?? '') };
}

/** The object the processor answered (undefined for errors, resets and timeouts). */
export function responseObject(entry: JournalEntry): Record<string, unknown> | undefined {
  return entry.status === 200 && isObject(entry.response) ? entry.response : undefined;
}

/** The processor's error message in an error answer, when there is one. */
export function errorMessage(entry: JournalEntry): string | undefined {
  const error = isObject(entry.response) ? entry.response.error : undefined;
  return isObject(error) && typeof error.message === 'string' ? error.message : undefined;
}

/** Ids of the PaymentIntents that were created and succeeded. */
export function succeededIntentIds(entries: JournalEntry[]): string[] {
  const ids = new Set<string>();
  for (const entry of paymentIntentCreations(entries)) {
    const intent = responseObject(entry);
    if (intent?.status === 'succeeded' && typeof intent.id === 'string') ids.add(intent.id);
  }
  return [...ids];
}

/** Customer and PaymentIntent ids an answer reveals, so later calls naming them are attributed to the same scenario. */
export function revealedIds(entry: JournalEntry): string[] {
  const body = responseObject(entry);
  if (!body) return [];
  const ids: string[] = [];
  if (typeof body.id === 'string' && /^(cus|pi)_/.test(body.id)) ids.push(body.id);
  if (Array.isArray(body.data)) {
    for (const item of body.data) if (isObject(item) && typeof item.id === 'string' && item.id.startsWith('cus_')) ids.push(item.id);
  }
  return ids;
}

/** One line per entry, for assertion messages and transcripts. */
export function describeEntry(entry: JournalEntry): string {
  const outcome = entry.fault ? `fault ${entry.fault}` : entry.status === null ? 'no answer' : String(entry.status);
  const key = entry.idempotencyKey ? ` idempotency-key=${entry.idempotencyKey}` : '';
  const replay = entry.replayed ? ' (replayed)' : '';
  const error = errorMessage(entry);
  const result = responseObject(entry);
  const summary = result ? ` → ${String(result.object ?? '')} ${String(result.id ?? '')}${result.status ? ` ${String(result.status)}` : ''}` : error ? ` → ${error}` : '';
  return `#${entry.seq} ${entry.method} ${entry.path} ${JSON.stringify(entry.params)}${key} ⇒ ${outcome}${replay}${summary}`;
}
