// Unit tests for the base64 JSON header codec.
import { describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from './base64-json.ts';

const json = (value: unknown): string => JSON.stringify(value);

describe('encodeBase64Json', () => {
  it('writes standard padded base64 of the JSON text', () => {
    expect(encodeBase64Json({ a: 1 })).toBe('eyJhIjoxfQ==');
    expect(encodeBase64Json({ clientId: 'é' })).toBe(Buffer.from(json({ clientId: 'é' })).toString('base64'));
  });
});

describe('decodeBase64Json', () => {
  const value = { x: '>>>???', n: 1 };
  const standard = Buffer.from(json(value)).toString('base64');
  const urlSafe = Buffer.from(json(value)).toString('base64url');

  it('accepts standard and URL-safe alphabets, padded or not', () => {
    expect(standard).toMatch(/[+/]/);
    expect(decodeBase64Json(standard)).toEqual({ ok: true, value });
    expect(decodeBase64Json(urlSafe)).toEqual({ ok: true, value });
    expect(decodeBase64Json(standard.replace(/=+$/, ''))).toEqual({ ok: true, value });
  });

  it.each([
    ['UTF-8 text', { clientId: 'é', emoji: '\u{1F600}' }, ''],
    ['UTF-8 text after a byte order mark, which the decoder drops', { a: 'ü' }, '\uFEFF'],
  ])('reads %s, standard or URL-safe', (_name, decoded, prefix) => {
    const bytes = Buffer.from(prefix + json(decoded));
    expect(decodeBase64Json(bytes.toString('base64'))).toEqual({ ok: true, value: decoded });
    expect(decodeBase64Json(bytes.toString('base64url'))).toEqual({ ok: true, value: decoded });
  });

  it.each([
    ['empty', ''],
    ['only padding', '=='],
    ['a character outside both alphabets', 'eyJhIjoxfQ*='],
    ['inner whitespace', 'eyJh IjoxfQ=='],
    ['two joined headers', 'eyJhIjoxfQ==, eyJhIjoxfQ=='],
    ['padding that breaks the length', 'eyJhIjoxfQ='],
    ['too much padding', 'eyJhIjoxfQ==='],
    ['a length of 4n+1', 'eyJhIjoxfQA'.slice(0, 9)],
    ['base64 of non-JSON', Buffer.from('hello').toString('base64')],
    ['base64 of invalid UTF-8', Buffer.from([0x22, 0xff, 0x22]).toString('base64')],
  ])('rejects %s', (_name, raw) => {
    expect(decodeBase64Json(raw)).toEqual({ ok: false });
  });
});
