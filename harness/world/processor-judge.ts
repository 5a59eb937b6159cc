// Judging the processor journal: what the target asked the processor for one request or one scenario (assertions throw).
import assert from 'node:assert/strict';
import { checkFor, RequirementFailure } from './check.ts';
import {
  customerCreations,
  customerRequests,
  customerSearches,
  describeEntry,
  errorMessage,
  paymentIntentCreations,
  parseMetadataQuery,
  paymentMethodRetrievals,
  responseObject,
  succeededIntentIds,
  type JournalEntry,
} from './journal-queries.ts';

const listing = (entries: JournalEntry[]): string => (entries.length === 0 ? ' (none)' : `\n  ${entries.map(describeEntry).join('\n  ')}`);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The target asked the processor nothing. */
export function expectNoRequest(entries: JournalEntry[]): void {
  assert.equal(entries.length, 0, `no processor request was expected, got:${listing(entries)}`);
}

/** No PaymentIntent creation was requested (CR-7.26). */
export function expectNoIntent(entries: JournalEntry[]): void {
  const intents = paymentIntentCreations(entries);
  assert.equal(intents.length, 0, `no PaymentIntent creation was expected, got:${listing(intents)}`);
}

/** No PaymentIntent was created and succeeded: nothing was charged. */
export function expectNoSucceededIntent(entries: JournalEntry[]): void {
  assert.deepEqual(succeededIntentIds(entries), [], `no PaymentIntent should have succeeded:${listing(paymentIntentCreations(entries))}`);
}

/** Exactly `count` PaymentIntent creation requests (replays of a key included). */
export function expectIntentCount(entries: JournalEntry[], count: number): void {
  const intents = paymentIntentCreations(entries);
  assert.equal(intents.length, count, `expected ${count} PaymentIntent creation request(s), got:${listing(intents)}`);
}

/** The single PaymentIntent creation among `entries`. */
export function singleIntent(entries: JournalEntry[]): JournalEntry {
  const intents = paymentIntentCreations(entries);
  assert.equal(intents.length, 1, `expected exactly one PaymentIntent creation, got:${listing(intents)}`);
  return intents[0] as JournalEntry;
}

/** The first and the last PaymentIntent creation of a scenario. */
export function firstAndLastIntent(entries: JournalEntry[]): [JournalEntry, JournalEntry] {
  const intents = paymentIntentCreations(entries);
  assert.ok(intents.length >= 2, `expected at least two PaymentIntent creations in the scenario, got:${listing(intents)}`);
  return [intents[0] as JournalEntry, intents[intents.length - 1] as JournalEntry];
}

/** One retrieval, of this payment method (CR-7.2). */
export function expectRetrievedOnce(entries: JournalEntry[], paymentMethodId: string): void {
  const retrievals = paymentMethodRetrievals(entries);
  assert.equal(retrievals.length, 1, `expected one payment-method retrieval, got:${listing(retrievals)}`);
  assert.equal(retrievals[0]?.path, `/v1/payment_methods/${paymentMethodId}`, 'the retrieved payment method');
}

/** No customer search, creation or retrieval. */
export function expectNoCustomerRequest(entries: JournalEntry[]): void {
  const calls = customerRequests(entries);
  assert.equal(calls.length, 0, `no customer request was expected, got:${listing(calls)}`);
}

/** No customer creation (an existing customer was found). */
export function expectNoCustomerCreated(entries: JournalEntry[]): void {
  const created = customerCreations(entries);
  assert.equal(created.length, 0, `no customer creation was expected, got:${listing(created)}`);
}

/** At least one customer search, every one with the query of CR-7.19 (`metadata['<key>']:'<clientId>'`, single or double quotes). */
export function expectCustomerSearch(entries: JournalEntry[], metadataKey: string, clientId: string): void {
  const searches = customerSearches(entries);
  assert.ok(searches.length >= 1, `expected a customer search, got:${listing(customerRequests(entries))}`);
  const wrong = searches.filter((entry) => {
    const parsed = parseMetadataQuery(entry.params.query);
    return parsed?.key !== metadataKey || parsed.value !== clientId;
  });
  assert.equal(wrong.length, 0, `every customer search must query metadata['${metadataKey}']:'${clientId}' (or in double quotes):${listing(wrong)}`);
}

/**
 * The PaymentIntent creations a barrier held together were all in flight before any was answered, so no top-up was
 * credited in between: they carry one and the same idempotency key (CR-7.16), and the processor charged at most once.
 */
export function expectHeldTogetherOneKey(entries: JournalEntry[]): void {
  const held = paymentIntentCreations(entries).filter((entry) => entry.fault === 'barrier');
  const keys = new Set(held.map((entry) => entry.idempotencyKey ?? '(none)'));
  checkFor('CR-7.16', () => {
    assert.ok(held.every((entry) => entry.idempotencyKey), `every PaymentIntent creation carries an idempotency key:${listing(held)}`);
    assert.ok(keys.size <= 1, `${held.length} PaymentIntent creations were in flight together, before any top-up was credited, so they must carry one idempotency key, got ${keys.size}:${listing(held)}`);
  });
}

/** One customer creation with the payment method, the metadata and an idempotency key (CR-7.19). */
export function expectCustomerCreated(entries: JournalEntry[], paymentMethodId: string, metadata: Record<string, string>): void {
  const created = customerCreations(entries);
  checkFor('CR-7.19', () => {
    assert.equal(created.length, 1, `expected one customer creation, got:${listing(created)}`);
    assert.equal(created[0]?.params.payment_method, paymentMethodId, 'the customer is created with the payment method');
  });
  const entry = created[0] as JournalEntry;
  const held = isObject(entry.params.metadata) ? entry.params.metadata : {};
  checkFor('CR-7.19', () => {
    for (const [key, value] of Object.entries(metadata)) assert.equal(held[key], value, `the customer metadata holds the clientId under the declared key ${key}`);
  });
  checkFor('CR-13.8', () => {
    assert.deepEqual(entry.params.metadata, metadata, 'the customer metadata holds only the clientId');
    assert.ok(entry.idempotencyKey && entry.idempotencyKey.length <= 255, `the customer creation carries an idempotency key of at most 255 characters: ${describeEntry(entry)}`);
  });
}

/** The customer id the target obtained for one request: found by search, or created (CR-7.5). */
export function customerOf(entries: JournalEntry[]): string {
  for (const entry of [...customerCreations(entries), ...customerSearches(entries)].reverse()) {
    const body = responseObject(entry);
    if (typeof body?.id === 'string') return body.id;
    const first = Array.isArray(body?.data) ? body.data[0] : undefined;
    if (isObject(first) && typeof first.id === 'string') return first.id;
  }
  throw new RequirementFailure('CR-7.5', `no customer was found or created:${listing(customerRequests(entries))}`);
}

/** The processor's message in the last error answer among `entries`. */
export function processorErrorMessage(entries: JournalEntry[]): string {
  const messages = entries.map(errorMessage).filter((message): message is string => message !== undefined);
  assert.ok(messages.length > 0, `the processor answered no error with a message:${listing(entries)}`);
  return messages[messages.length - 1] as string;
}

/** Checks the PaymentIntent parameters of CR-7.15 that do not depend on the request. */
export function expectConfirmedWithoutRedirects(intent: JournalEntry): void {
  assert.equal(intent.params.confirm, 'true', `confirm=true: ${describeEntry(intent)}`);
  assert.deepEqual(intent.params.automatic_payment_methods, { enabled: 'true', allow_redirects: 'never' }, 'automatic_payment_methods');
  assert.notEqual(intent.params.capture_method, 'manual', 'capture must be automatic');
}
