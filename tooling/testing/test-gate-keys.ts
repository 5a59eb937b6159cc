// Test helper: the keys a gate under test is built with when its test is not about keys (a test publishable key, a 32-character server secret).

/** `stripePublishableKey` and `serverSecret` for `createGate` in tests. */
export const TEST_GATE_KEYS = { stripePublishableKey: 'pk_test_x', serverSecret: 'x'.repeat(32) } as const;
