// The vectors file is well-formed on its own: machine-readable triggers, base64 inputs that encode their JSON texts,
// requirement IDs the spec defines, and numbers every JSON parser reads exactly. (The reference runs the vectors in
// reference/protocol/vectors.test.ts.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { credit402Vectors as vectors, TRIGGER_KINDS } from './vectors.ts';

const spec = readFileSync(new URL('../spec/protocol.md', import.meta.url), 'utf8');
const specIds = new Set([...spec.matchAll(/^\*\*(CR-\d+\.\d+) /gm)].map((match) => match[1]));
const decodeText = (value: string): string => Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
const named = <T extends { name: string }>(list: T[]): Array<[string, T]> => list.map((entry) => [entry.name, entry]);

const MEMBER_OF_KIND: Record<(typeof TRIGGER_KINDS)[number], string | undefined> = {
  header: undefined,
  payload: undefined,
  balance: 'balance',
  processor: 'processor',
  store: 'store',
  lease: 'lease',
};

describe('errorAnswers triggers are machine-readable', () => {
  it.each(named(vectors.errorAnswers))('%s', (_name, { trigger, requirements }) => {
    expect(TRIGGER_KINDS).toContain(trigger.kind);
    const member = MEMBER_OF_KIND[trigger.kind];
    const expectedKeys = ['kind', 'payment', ...(trigger.kind === 'header' ? [] : ['json']), ...(member ? [member] : [])];
    expect(Object.keys(trigger).sort()).toEqual(expectedKeys.sort());
    if ('json' in trigger) expect(decodeText(trigger.payment)).toBe(trigger.json);
    if (trigger.kind === 'processor') {
      expect(trigger.processor.request).toMatch(/^(GET|POST) \/v1\/[a-z_]+(\/[A-Za-z0-9_]+)?$/);
      expect(['card_error', 'error', 'payment_intent', 'none']).toContain(trigger.processor.answer.kind);
    }
    if (trigger.kind === 'store') {
      expect(specIds.has(trigger.store.failsAt)).toBe(true);
      expect(['deductBalance', 'creditTopUp']).toContain(trigger.store.operation);
    }
    if (trigger.kind === 'balance') expect(trigger.balance === null || Number.isSafeInteger(trigger.balance)).toBe(true);
    for (const id of requirements) expect(specIds.has(id), `${id} is a requirement of spec/protocol.md`).toBe(true);
  });

  it('covers every error code and every trigger kind', () => {
    expect(new Set(vectors.errorAnswers.map(({ errorCode }) => errorCode))).toEqual(
      new Set(['invalid_payment', 'top_up_below_minimum', 'card_declined', 'payment_failed', 'insufficient_credits', 'service_unavailable']),
    );
    expect(new Set(vectors.errorAnswers.map(({ trigger }) => trigger.kind))).toEqual(new Set(TRIGGER_KINDS));
  });
});

describe('decode vectors', () => {
  it.each(named(vectors.decode.filter(({ json }) => typeof json === 'string')))('%s: the input encodes its JSON text', (_name, { input, json }) => {
    expect(decodeText(input)).toBe(json);
  });

  it('include binary64 roundings, NaN and Infinity, and stripe402Version true (CR-3.7, CR-13.33)', () => {
    const texts = vectors.decode.map(({ input }) => decodeText(input));
    for (const needle of ['50000.00000000000001', '9007199254740990.9', '9007199254740991.5', '1e400', 'NaN', 'Infinity', '"stripe402Version":true']) {
      expect(texts.some((text) => text.includes(needle)), needle).toBe(true);
    }
  });
});

describe('routing, serverSecret and routeConfig vectors', () => {
  it.each(named(vectors.routing.cases))('routing %s: the resource url is the matched key\'s path', (_name, { expected }) => {
    if (!expected.gated) return;
    expect(Object.keys(vectors.routing.routes)).toContain(expected.routeKey);
    expect(`${expected.routeKey.split(' ')[0]} ${expected.resourceUrl}`).toBe(expected.routeKey);
  });

  it.each(named(vectors.serverSecret))('serverSecret %s: valid exactly from 32 UTF-8 bytes (CR-2.8)', (_name, { serverSecret, utf8Bytes, valid }) => {
    expect(Buffer.byteLength(serverSecret, 'utf8')).toBe(utf8Bytes);
    expect(valid).toBe(utf8Bytes >= 32);
  });

  it.each(named(vectors.routeConfig))('routeConfig %s: a JSON text of a routes map', (_name, { json }) => {
    expect(typeof JSON.parse(json)).toBe('object');
  });
});

describe('the vectors file', () => {
  it('holds no number a JSON parser reading doubles or 64-bit integers could change (numbers to round are inside JSON texts)', () => {
    const { unitsToMinor, ...rest } = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8')) as Record<string, unknown> & { unitsToMinor: { cases: unknown; outOfDomain: number[] } };
    const numbers: number[] = [];
    JSON.parse(JSON.stringify({ rest, cases: unitsToMinor.cases }), (_key, value: unknown) => {
      if (typeof value === 'number') numbers.push(value);
      return value;
    });
    expect(numbers.filter((value) => !Number.isSafeInteger(value))).toEqual([]);
    // The out-of-domain units are exact in binary64 and, but for 1.5, in 64-bit integers.
    expect(unitsToMinor.outOfDomain).toEqual([-1, 1.5, 2 ** 53]);
  });
});
