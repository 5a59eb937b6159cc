// Unit tests of the fuzz failure classes: one class per way of failing, grouping, the shortest value as example.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../exchange.ts';
import type { JournalEntry } from '../journal-queries.ts';
import type { Allowed } from './arbitraries.ts';
import { classify, groupFailures, normalise, transportClass, type FuzzFailure } from './failure-classes.ts';
import { describeFailures } from './failure-report.ts';

/** An exchange of `GET /api/weather` answered `status` with a JSON `body` (or the transport `error`). */
function exchange(status: number | string, body?: unknown): Exchange {
  const base = { request: { method: 'GET', target: '/api/weather', headers: { payment: 'e30=' } }, path: '/api/weather', startedAt: '2025-01-01T00:00:00.000Z', durationMs: 3 };
  if (typeof status === 'string') return { ...base, error: status };
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const json = typeof body === 'string' ? undefined : body;
  return { ...base, answer: { status, rawHeaders: [['content-type', 'application/json']], headers: { 'content-type': 'application/json' }, text, json } };
}

/** A failure of value `index` (its value `value`) with the judge's `verdict`. */
function failure(ex: Exchange, verdict: string | undefined, options: { index?: number; value?: string; kind?: string; allowed?: Allowed; calls?: JournalEntry[] } = {}): FuzzFailure {
  return {
    index: options.index ?? 0,
    fuzzCase: { kind: options.kind ?? 'random JSON value', value: options.value ?? 'e30=', allowed: options.allowed ?? 'challenge or invalid_payment' },
    exchange: ex,
    verdict,
    processorCalls: (options.calls ?? []).map((entry) => ({ entry, suspects: 1 })),
  };
}

const call = (path: string): JournalEntry => ({ seq: 7, time: '2025-01-01T00:00:00.001Z', method: 'GET', path, params: {}, requestId: 'req_1', status: 200, replayed: false, response: null });
const paymentError = (errorCode: unknown, error = 'Invalid payment') => ({ success: false, creditsRemaining: 0, clientId: '', errorCode, error });

describe('classify', () => {
  it('names 5xx and other statuses by their status', () => {
    expect(classify(failure(exchange(500, { error: 'boom' }), 'status 500 (only 402 is allowed)'))).toBe('answered 500');
    expect(classify(failure(exchange(400, 'bad'), 'status 400 (only 402 is allowed)'))).toBe('answered 400');
  });

  it('says when the handler ran, and only then', () => {
    expect(classify(failure(exchange(200, { route: 'GET /api/weather' }), 'status 200'))).toBe('answered 200: the handler ran');
    expect(classify(failure(exchange(200, { ok: true }), 'status 200'))).toBe('answered 200');
  });

  it('names the errorCode of a 402 that is neither a challenge nor invalid_payment', () => {
    expect(classify(failure(exchange(402, paymentError('processor_error')), 'errorCode'))).toBe('402 that is neither a challenge nor invalid_payment: errorCode "processor_error"');
    expect(classify(failure(exchange(402, { success: false }), 'members'))).toBe('402 that is neither a challenge nor invalid_payment: errorCode missing');
    expect(classify(failure(exchange(402, 'nope'), 'body'))).toBe('402 that is neither a challenge nor invalid_payment: the body is not JSON');
  });

  it('groups a wrong message of a malformed header by the message, numbers normalised', () => {
    const ex = exchange(402, paymentError('invalid_payment', 'Unexpected token at position 17'));
    expect(classify(failure(ex, 'the error message', { allowed: 'malformed' }))).toBe('invalid_payment without "Malformed payment header": error "Unexpected token at position N"');
  });

  it('names the failed check of a wrong-shaped answer, without the exchange it quotes', () => {
    const ex = exchange(402, { ...paymentError('invalid_payment'), extra: 1 });
    const verdict = 'a payment error has exactly the members clientId, creditsRemaining, error, errorCode, success\n+ actual - expected …';
    expect(classify(failure(ex, verdict))).toBe('invalid_payment of the wrong shape: a payment error has exactly the members clientId, creditsRemaining, error, errorCode, success');
    const media = exchange(402, { accepts: [] });
    expect(classify(failure(media, 'the body\'s media type must be application/json, got "text/html": GET /api/weather → 402 {"accepts":[]}'))).toBe(
      'a 402 challenge of the wrong shape: the body\'s media type must be application/json, got "text/html"',
    );
    expect(classify(failure(media, 'x', { allowed: 'invalid_payment' }))).toBe('a 402 challenge where invalid_payment is required');
  });

  it('names transport errors in a few words', () => {
    expect(classify(failure(exchange('read ECONNRESET'), 'no answer: read ECONNRESET'))).toBe('transport error: reset');
    expect(transportClass('socket hang up')).toBe('reset');
    expect(transportClass('the target did not answer within 15000 ms')).toBe('timeout');
    expect(transportClass('Parse Error: Invalid header value char')).toBe('Parse Error: Invalid header value char');
  });

  it('names the processor calls of an otherwise allowed answer, ids replaced', () => {
    const ex = exchange(402, paymentError('invalid_payment'));
    const calls = [call('/v1/payment_methods/pm_abc123'), call('/v1/payment_methods/pm_def'), call('/v1/customers/search')];
    expect(classify(failure(ex, undefined, { calls }))).toBe('called the processor: GET /v1/customers/search, GET /v1/payment_methods/:id');
  });
});

describe('normalise', () => {
  it('replaces free-standing numbers, keeps requirement IDs and codes, collapses whitespace, cuts at 120', () => {
    expect(normalise('length 4001 at  12.5\nof CR-5.2 E500')).toBe('length N at N of CR-5.2 E500');
    expect(normalise('x'.repeat(200))).toHaveLength(120);
  });
});

describe('groupFailures', () => {
  it('counts each class and its kinds, most frequent first, with the shortest (then first) value as example', () => {
    const five = (index: number, value: string, kind = 'random JSON value') => failure(exchange(500), 'status 500', { index, value, kind });
    const groups = groupFailures([
      five(4, 'AAAAAAAA'),
      failure(exchange('socket hang up'), 'no answer', { index: 1, value: 'AAAA' }),
      five(9, 'AAAA', 'huge JSON member'),
      five(2, 'AAAA'),
    ]);
    expect(groups.map((group) => [group.label, group.count, group.example.index])).toEqual([
      ['answered 500', 3, 2],
      ['transport error: reset', 1, 1],
    ]);
    expect(groups[0]?.kinds).toEqual({ 'random JSON value': 2, 'huge JSON member': 1 });
  });
});

describe('describeFailures', () => {
  it('prints the seed, each class with its count and one full example: decoded header, whole answer, why', () => {
    const value = Buffer.from('{"topUpAmount":-1}').toString('base64');
    const ex = exchange(500, { error: 'boom' });
    ex.request.headers = { payment: value };
    const text = describeFailures({
      seed: 402,
      runs: 1000,
      durationMs: 1,
      kinds: {},
      failures: [
        failure(ex, 'status 500 (only 402 is allowed)', { index: 6, value, kind: 'mistyped topUpAmount' }),
        failure(exchange(500), 'status 500', { index: 8, value: `${value}AAAA` }),
        failure(exchange(402, paymentError('invalid_payment')), undefined, { index: 9, kind: 'mistyped clientId', calls: [call('/v1/payment_methods/pm_1')] }),
      ],
      unattributedCalls: [call('/v1/customers/search')],
    });
    expect(text).toContain('3 of 1000 generated values got a wrong answer or reached the processor (seed 402;');
    expect(text).toContain('class 2 of 2: called the processor: GET /v1/payment_methods/:id — 1 value (mistyped clientId 1)');
    expect(text).toContain('  processor calls answered while it was in flight:\n    #7 GET /v1/payment_methods/pm_1 {} ⇒ 200');
    expect(text).toContain('processor call(s) tied to no generated value');
    expect(text).toContain('class 1 of 2: answered 500 — 2 values (mistyped topUpAmount 1, random JSON value 1)');
    expect(text).toContain('  example: value 7 of 1000, mistyped topUpAmount (the shortest of this class)');
    expect(text).toContain(['      > payment: "eyJ0b3BVcEFtb3VudCI6LTF9"', '        decoded payment (lenient, for reading only):', '          {', '            "topUpAmount": -1', '          }'].join('\n'));
    expect(text).toContain(['      < 500', '      < content-type: application/json', '      body:', '        {"error":"boom"}', '  why: status 500 (only 402 is allowed)'].join('\n'));
  });
});
