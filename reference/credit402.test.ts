// Unit tests for configuration errors raised when credit402 is constructed.
import { describe, expect, it } from 'vitest';
import { createCredit402, createCredit402Webhooks, type Credit402Options } from './credit402.ts';
import { MemoryStore } from './stores/memory/memory-store.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';

const valid = (): Credit402Options => ({
  stripeSecretKey: 'sk_test_abc',
  stripePublishableKey: 'pk_test_abc',
  serverSecret: 's'.repeat(32),
  store: new MemoryStore(),
  routes: { 'GET /a': { amount: 500 } },
});

/** The code of the configuration error `createCredit402(options)` throws; undefined when it accepts them. */
const configErrorOf = (options: Credit402Options): string | undefined => codeOf(() => createCredit402(options));

describe('createCredit402 configuration (CR-2.3, CR-2.4, CR-2.5, CR-2.6, CR-2.7, CR-2.8, CR-2.9, CR-2.10, CR-2.17, CR-2.18, CR-11.1)', () => {
  it('accepts a valid configuration', () => {
    expect(configErrorOf(valid())).toBeUndefined();
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
    ['ERR_ROUTES', { routes: [] as never }],
    ['ERR_ROUTE_CONFLICT', { routes: { 'GET /u/:id': { amount: 1 }, 'GET /u/:name': { amount: 1 } } }],
    ['ERR_STORE', { store: Object.assign(new MemoryStore(), { hasCredit: 5 }) as never }],
    ['ERR_STORE', { store: Object.assign(new MemoryStore(), { releaseLock: undefined }) as never }],
    ['ERR_STORE', { store: Object.assign(new MemoryStore(), { listTransactions: undefined }) as never }],
    ['ERR_LOCK', { lockWaitMs: -1 }],
    ['ERR_LOCK', { lockTtlMs: 0 }],
    ['ERR_LOCK', { lockTtlMs: 1.5 }],
    ['ERR_REFUND_ON_HANDLER_ERROR', { refundOnHandlerError: 'yes' as never }],
  ])('rejects with %s', (code, change) => {
    expect(configErrorOf({ ...valid(), ...change })).toBe(code);
  });
});

describe('createCredit402Webhooks configuration', () => {
  const base = { stripeSecretKey: 'sk_test_abc', store: new MemoryStore() };
  const codeOfWebhooks = (options: Parameters<typeof createCredit402Webhooks>[0]) => codeOf(() => createCredit402Webhooks(options));

  it('accepts a whsec_ secret and rejects anything else, or a store without reversals', () => {
    expect(codeOfWebhooks({ ...base, stripeWebhookSecret: 'whsec_abc123' })).toBeUndefined();
    expect(codeOfWebhooks({ ...base, stripeWebhookSecret: undefined as never })).toBe('ERR_WEBHOOK_SECRET');
    expect(codeOfWebhooks({ ...base, stripeWebhookSecret: 'sk_test_abc' })).toBe('ERR_WEBHOOK_SECRET');
    expect(codeOfWebhooks({ ...base, stripeWebhookSecret: 'whsec_abc', store: Object.assign(new MemoryStore(), { reverseTopUp: undefined }) })).toBe('ERR_STORE');
    expect(codeOfWebhooks({ ...base, stripeWebhookSecret: 'whsec_abc', stripeSecretKey: 'nope' })).toBe('ERR_STRIPE_SECRET_KEY');
  });
});
