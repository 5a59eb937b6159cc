// Live keys never meet the emulator: the reference server refuses to start with them unless the Stripe API is Stripe's.
import { describe, expect, it, vi } from 'vitest';
import { serveCommand } from '../cli/serve-command.ts';
import { loadServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer } from '../server/start-server.ts';
import { assertLiveKeysReachStripe, isStripeItself } from './live-keys.ts';
import { useConfigFiles } from 'credit402-tooling/testing/config-files';
import { codeOf } from 'credit402-tooling/testing/error-code';

/** A `--config` file with the given fields. */
const configFile = useConfigFiles('credit402-live-keys-');

const LIVE = { stripeSecretKey: 'sk_live_credit402example', stripePublishableKey: 'pk_live_credit402example' };
/** Live keys start only with a secret of the operator's own (production-guards.ts). */
const OWN_SECRET = { serverSecret: 'an-operator-secret-of-at-least-32-bytes-0123456789' };

describe('live keys and the emulator', () => {
  it('refuses live keys from a --config file that keeps the embedded emulator, or names any API base but Stripe', () => {
    expect(codeOf(() => loadServerConfig({ configPath: configFile('embedded', LIVE) }))).toBe('ERR_LIVE_KEYS_WITH_EMULATOR');
    expect(codeOf(() => loadServerConfig({ configPath: configFile('url', { ...LIVE, stripeApi: 'http://127.0.0.1:12111' }) }))).toBe('ERR_LIVE_KEYS_WITH_EMULATOR');
    expect(codeOf(() => loadServerConfig({ configPath: configFile('lookalike', { ...LIVE, stripeApi: 'https://api.stripe.com.example.net' }) }))).toBe('ERR_LIVE_KEYS_WITH_EMULATOR');
    expect(codeOf(() => loadServerConfig({ env: { STRIPE_SECRET_KEY: LIVE.stripeSecretKey, STRIPE_PUBLISHABLE_KEY: LIVE.stripePublishableKey, STRIPE_API_BASE: 'http://127.0.0.1:12111' } }))).toBe('ERR_LIVE_KEYS_WITH_EMULATOR');
    // One live key is enough (the gate reports a mode mismatch later; the emulator must not start first).
    expect(codeOf(() => loadServerConfig({ overrides: { stripeSecretKey: 'rk_live_x' } }))).toBe('ERR_LIVE_KEYS_WITH_EMULATOR');
    expect(codeOf(() => loadServerConfig({ overrides: { stripePublishableKey: 'pk_live_x' } }))).toBe('ERR_LIVE_KEYS_WITH_EMULATOR');
  });

  it('accepts live keys with Stripe itself, and test keys with the emulator', () => {
    expect(loadServerConfig({ configPath: configFile('stripe', { ...LIVE, ...OWN_SECRET, stripeApi: 'stripe' }) }).stripeApi).toBe('stripe');
    expect(loadServerConfig({ configPath: configFile('stripe-url', { ...LIVE, ...OWN_SECRET, stripeApi: 'https://api.stripe.com' }) }).stripeApi).toBe('https://api.stripe.com');
    expect(loadServerConfig({ env: { STRIPE_SECRET_KEY: LIVE.stripeSecretKey, STRIPE_PUBLISHABLE_KEY: LIVE.stripePublishableKey, CREDIT402_SERVER_SECRET: OWN_SECRET.serverSecret } }).stripeApi).toBe('stripe');
    expect(loadServerConfig({ configPath: configFile('test', { stripeApi: 'http://127.0.0.1:12111' }) }).stripeApi).toBe('http://127.0.0.1:12111');
    expect(isStripeItself('http://api.stripe.com')).toBe(false);
    expect(isStripeItself('https://api.stripe.com:8443')).toBe(false);
  });

  it('refuses a configuration object that bypassed the loader, before starting the emulator', async () => {
    const config = { ...loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' } } }), ...LIVE };
    await expect(startReferenceServer(config)).rejects.toMatchObject({ code: 'ERR_LIVE_KEYS_WITH_EMULATOR' });
    expect(() => assertLiveKeysReachStripe({ ...LIVE, stripeApi: 'embedded' })).toThrow(/embedded Stripe emulator/);
  });

  it('credit402 serve --config with live keys exits with the configuration error code', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await serveCommand(['--config', configFile('serve', LIVE)])).toBe(2);
      expect(errors.mock.calls.flat().join(' ')).toContain('ERR_LIVE_KEYS_WITH_EMULATOR');
    } finally {
      errors.mockRestore();
    }
  });
});
