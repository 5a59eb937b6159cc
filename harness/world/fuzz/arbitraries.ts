// fast-check generators of `payment` header values, each with the answers it allows.
import fc from 'fast-check';
import { encode } from '../base64-json.ts';

/** What a generated value may get: any protocol answer, an `invalid_payment`, or exactly `Malformed payment header`. */
export type Allowed = 'challenge or invalid_payment' | 'invalid_payment' | 'malformed';

/** One generated header value. */
export interface FuzzCase {
  kind: string;
  value: string;
  allowed: Allowed;
}

const BASE64_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_='];
const RAW_CHARS = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', ...Array.from({ length: 128 }, (_, i) => String.fromCharCode(128 + i))];
const INSERTABLE = [' ', '\t', ',', '*', '.', '!', '#', '%', '~', '"', '{', '\u00e9', '=', 'A', '+', '_'];

/** Any Unicode code point, lone surrogates included (fast-check's 'binary' unit is slow to warm up). */
const CODE_POINT = fc.integer({ min: 0, max: 0x10ffff }).map((point) => String.fromCodePoint(point));

const json = (value: unknown): string => JSON.stringify(value);
const notOne = fc.oneof(fc.integer().filter((n) => n !== 1), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => n !== 1));
const notSafePositiveInteger = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)).map(json),
  fc.integer({ max: 0 }).map(json),
  fc.constantFrom('9007199254740992', '1e20', '1e308', '18446744073709551616', '-0', '0.0'),
  fc.string({ maxLength: 12 }).map(json),
);
const notAType = fc.oneof(fc.constant('null'), fc.boolean().map(json), fc.array(fc.integer(), { maxLength: 3 }).map(json), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }).map(json));
const notAString = fc.oneof(notAType, fc.constant('""'), fc.integer().map(json), fc.double({ noNaN: true, noDefaultInfinity: true }).map(json));

/** A payload with one mistyped member, next to the card's payment method so a lenient target would charge it. */
function wrongMember(paymentMethodId: string): fc.Arbitrary<FuzzCase> {
  const members: Record<string, fc.Arbitrary<string>> = {
    stripe402Version: fc.oneof(notOne.map(json), notAType, fc.constant('"1"')),
    clientId: notAString,
    paymentMethodId: notAString,
    topUpAmount: fc.oneof(notSafePositiveInteger, notAType),
  };
  return fc.constantFrom(...Object.keys(members)).chain((member) =>
    (members[member] as fc.Arbitrary<string>).map((raw) => {
      const card = member === 'paymentMethodId' ? '' : `,"paymentMethodId":${json(paymentMethodId)}`;
      return { kind: `mistyped ${member}`, value: encode(`{${json(member)}:${raw}${card}}`), allowed: 'invalid_payment' as const };
    }),
  );
}

/** The card's valid payment, base64-encoded, then broken in a way CR-3.4 always rejects. */
function brokenPayment(paymentMethodId: string): fc.Arbitrary<FuzzCase> {
  const valid = fc.string({ maxLength: 30, unit: 'grapheme' }).map((note) => encode(json({ paymentMethodId, topUpAmount: 50_000, note })));
  const insert = fc.tuple(valid, fc.nat(), fc.constantFrom(...INSERTABLE)).map(([value, at, char]) => {
    const position = 1 + (at % (value.length - 1));
    return `${value.slice(0, position)}${char}${value.slice(position)}`;
  });
  const extraPad = valid.map((value) => `${value}=`);
  const truncated = fc.tuple(valid, fc.nat()).map(([value, cut]) => {
    const body = value.replace(/=+$/, '');
    return body.slice(0, 4 * (cut % Math.floor((body.length - 1) / 4)) + 1);
  });
  return fc.oneof(insert, extraPad, truncated).map((value) => ({ kind: 'broken card payment', value, allowed: 'malformed' as const }));
}

/** A string of 1000 to `max` characters repeating a short generated one (cheap to generate, still varied). */
const huge = (part: fc.Arbitrary<string>, max: number): fc.Arbitrary<string> =>
  fc.tuple(part, fc.integer({ min: 1000, max })).map(([text, length]) => text.repeat(Math.ceil(length / text.length)).slice(0, length));

/** Every kind of generated value, for a scenario whose card is `paymentMethodId`. */
export function fuzzCases(paymentMethodId: string): fc.Arbitrary<FuzzCase> {
  const any = (kind: string) => (value: string): FuzzCase => ({ kind, value, allowed: 'challenge or invalid_payment' });
  return fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((bytes) => encode(bytes)).map(any('random bytes as base64')),
    fc.jsonValue({ maxDepth: 3 }).map((value) => encode(json(value))).map(any('random JSON value')),
    wrongMember(paymentMethodId),
    huge(fc.string({ unit: fc.constantFrom(...BASE64_CHARS), minLength: 1, maxLength: 64 }), 4000).map(any('huge base64-like string')),
    huge(fc.string({ minLength: 1, maxLength: 64 }), 3000).map((note) => encode(json({ note }))).map(any('huge JSON member')),
    fc.string({ unit: CODE_POINT, maxLength: 200 }).map((text) => encode(text)).map(any('random unicode text')),
    fc.string({ unit: CODE_POINT, maxLength: 100 }).map((text) => encode(json({ [text]: text }))).map(any('random unicode member')),
    fc.string({ unit: fc.constantFrom(...RAW_CHARS), maxLength: 200 }).map(any('random raw header text')),
    brokenPayment(paymentMethodId),
  );
}
