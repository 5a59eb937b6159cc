// Judging the journal by meaning, not by exact text: customer search queries in either quoting, creations held together by a barrier.
import { describe, expect, it } from 'vitest';
import { parseMetadataQuery, type JournalEntry } from './journal-queries.ts';
import { expectCustomerSearch, expectHeldTogetherOneKey } from './processor-judge.ts';

const CLIENT = 'c'.repeat(64);
let seq = 0;
const entry = (fields: Partial<JournalEntry>): JournalEntry => ({
  seq: ++seq, time: '', method: 'GET', path: '/', params: {}, requestId: 'req_x', status: 200, replayed: false, response: null, ...fields,
});
const search = (query: string) => entry({ path: '/v1/customers/search', params: { query } });
const held = (idempotencyKey?: string) =>
  entry({ method: 'POST', path: '/v1/payment_intents', fault: 'barrier', idempotencyKey });

describe('parseMetadataQuery', () => {
  it('reads single and double quotes, spaces around the colon and escaped quotes', () => {
    expect(parseMetadataQuery(`metadata['k']:'${CLIENT}'`)).toEqual({ key: 'k', value: CLIENT });
    expect(parseMetadataQuery(`metadata["k"] : "${CLIENT}"`)).toEqual({ key: 'k', value: CLIENT });
    expect(parseMetadataQuery(String.raw`metadata['k']:'it\'s'`)).toEqual({ key: 'k', value: "it's" });
  });

  it('refuses anything else', () => {
    for (const query of [`metadata[k]:'v'`, `email:'a@b'`, `metadata['k']:'v' AND email:'x'`, `metadata['k']:"v`, 42]) expect(parseMetadataQuery(query)).toBeUndefined();
  });
});

describe('expectCustomerSearch', () => {
  it('accepts the CR-7.19 query in either quoting', () => {
    expectCustomerSearch([search(`metadata['credit402_client_id']:'${CLIENT}'`), search(`metadata["credit402_client_id"]:"${CLIENT}"`)], 'credit402_client_id', CLIENT);
  });

  it('refuses another key, another clientId, or no search', () => {
    expect(() => expectCustomerSearch([search(`metadata['other']:'${CLIENT}'`)], 'credit402_client_id', CLIENT)).toThrow(/every customer search must query/);
    expect(() => expectCustomerSearch([search(`metadata['credit402_client_id']:'${'d'.repeat(64)}'`)], 'credit402_client_id', CLIENT)).toThrow(/every customer search/);
    expect(() => expectCustomerSearch([], 'credit402_client_id', CLIENT)).toThrow(/expected a customer search/);
  });
});

describe('expectHeldTogetherOneKey', () => {
  it('accepts one key, or a single creation held alone (a serialising target), or none', () => {
    expectHeldTogetherOneKey([held('k'), held('k'), held('k')]);
    expectHeldTogetherOneKey([held('k'), entry({ method: 'POST', path: '/v1/payment_intents', idempotencyKey: 'later' })]);
    expectHeldTogetherOneKey([]);
  });

  it('refuses creations held together with different keys, or without a key', () => {
    expect(() => expectHeldTogetherOneKey([held('a'), held('b')])).toThrow(/^\[CR-7\.16\] 2 PaymentIntent creations were in flight together/);
    expect(() => expectHeldTogetherOneKey([held(), held()])).toThrow(/carries an idempotency key/);
  });
});
