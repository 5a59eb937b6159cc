// Unit tests for configuration errors raised when credit402 is constructed.
import { describe, expect, it } from 'vitest';
import { createCredit402, type Credit402Options } from './credit402.ts';
import { MemoryStore } from './stores/memory-store.ts';

const valid = (): Credit402Options => ({
  stripeSecretKey: 'sk_test_abc',
  stripePublishableKey: 'pk_test_abc',
  serverSecret: 's'.repeat(32),
  store: new MemoryStore(),
  routes: { 'GET /a': { amount: 500 } },
});

function codeOf(options: Credit402Options): string | undefined {
  try {
    createCredit402(options);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('createCredit402 configuration (CR-2.3, CR-2.4, CR-2.5, CR-2.6, CR-2.7, CR-2.8, CR-2.9, CR-2.10, CR-2.17, CR-2.18, CR-11.1)', () => {
  it('accepts a valid configuration', () => {
    expect(codeOf(valid())).toBeUndefined();
  });

  it.each<[string, Partial<Credit402Options>]>([
    ['ERR_STRIPE_SECRET_KEY', { stripeSecretKey: 'pk_test_abc' }],
    ['ERR_STRIPE_SECRET_KEY', { stripeSecretKey: '' }],
    ['ERR_PUBLISHABLE_KEY', { stripePublishableKey: 'sk_test_abc' }],
    ['ERR_KEY_MODE_MISMATCH', { stripeSecretKey: 'sk_live_abc' }],
    ['ERR_SERVER_SECRET', { serverSecret: 'short' }],
    ['ERR_STORE', { store: {} as never }],
    ['ERR_SERVICE_NAME', { serviceName: ' ' }],
    ['ERR_CUSTOMER_METADATA_KEY', { customerMetadataKey: 'bad key!' }],
    ['ERR_ROUTES', { routes: {} }],
  ])('rejects with %s', (code, change) => {
    expect(codeOf({ ...valid(), ...change })).toBe(code);
  });
});
