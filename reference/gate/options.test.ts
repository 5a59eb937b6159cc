// Unit tests for the gate options' validation at construction: the serverSecret's length in UTF-8 bytes.
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import type { Processor } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { SERVER_SECRET_MIN_BYTES, validateGateOptions, type GateOptions } from './options.ts';

const processor: Processor = {
  getCardFingerprint: async () => 'fp',
  findOrCreateCustomer: async () => 'cus',
  charge: async () => ({ id: 'pi', succeeded: true as const }),
};

/** The code of the Credit402ConfigError that validating options with `serverSecret` throws; undefined when they are valid. */
function codeFor(serverSecret: unknown): string | undefined {
  const options = { stripePublishableKey: 'pk_test_abc', serverSecret, store: new MemoryStore(), processor, routes: {} } as unknown as GateOptions;
  return codeOf(() => validateGateOptions(options), Credit402ConfigError);
}

describe('serverSecret length (CR-2.8, CR-13.34)', () => {
  it('CR-2.8 CR-13.34 counts UTF-8 bytes, not characters, code points or UTF-16 units', () => {
    expect(SERVER_SECRET_MIN_BYTES).toBe(32);
    expect(codeFor('s'.repeat(32))).toBeUndefined();
    expect(codeFor('s'.repeat(31))).toBe('ERR_SERVER_SECRET');
    // 16 × é: 16 code points, 16 UTF-16 units, 32 bytes.
    expect(codeFor('é'.repeat(16))).toBeUndefined();
    // 10 × €: 30 bytes.
    expect(codeFor('€'.repeat(10))).toBe('ERR_SERVER_SECRET');
    // 8 emoji: 8 code points, 16 UTF-16 units, 32 bytes.
    expect(codeFor('🔑'.repeat(8))).toBeUndefined();
    expect(codeFor('🔑'.repeat(7))).toBe('ERR_SERVER_SECRET');
    // 31 ASCII + é: 32 code points, 33 bytes.
    expect(codeFor(`${'s'.repeat(31)}é`)).toBeUndefined();
  });

  it('CR-2.8 rejects a missing or non-string serverSecret', () => {
    for (const value of [undefined, null, 32, Buffer.alloc(32)]) expect(codeFor(value)).toBe('ERR_SERVER_SECRET');
  });
});
