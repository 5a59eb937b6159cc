// Unit tests for client identity derivation.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveClientId, isClientIdShape } from './identity.ts';

describe('deriveClientId', () => {
  it('is the lowercase hex HMAC-SHA256 of the fingerprint keyed with the secret', () => {
    const expected = createHmac('sha256', 'secret').update('fp_123').digest('hex');
    expect(deriveClientId('fp_123', 'secret')).toBe(expected);
    expect(deriveClientId('fp_123', 'secret')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches a known vector (RFC 4231-style check of the construction)', () => {
    expect(deriveClientId('The quick brown fox jumps over the lazy dog', 'key')).toBe(
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
  });

  it('differs per secret and per fingerprint', () => {
    expect(deriveClientId('a', 'secret')).not.toBe(deriveClientId('b', 'secret'));
    expect(deriveClientId('a', 'secret')).not.toBe(deriveClientId('a', 'other'));
  });
});

describe('isClientIdShape', () => {
  it('accepts exactly 64 lowercase hex characters', () => {
    expect(isClientIdShape('a'.repeat(64))).toBe(true);
    expect(isClientIdShape('A'.repeat(64))).toBe(false);
    expect(isClientIdShape('a'.repeat(63))).toBe(false);
    expect(isClientIdShape(`${'a'.repeat(63)}g`)).toBe(false);
  });
});
