// What production must never run with: the conformance control routes with live keys or Stripe itself, a public serverSecret with live keys.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { gatewayCommand } from '../cli/gateway-command.ts';
import { loadGatewayConfig, type GatewayConfig } from '../gateway/gateway-config.ts';
import { startGateway } from '../gateway/start-gateway.ts';
import { serveCommand } from '../cli/serve-command.ts';
import { loadServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer } from '../server/start-server.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { useConfigFiles } from 'credit402-tooling/testing/config-files';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { createCredit402 } from '../credit402.ts';
import { PUBLIC_SERVER_SECRETS } from './production-guards.ts';

/** A `--config` file with the given fields. */
const configFile = useConfigFiles('credit402-production-guards-');

const OWN_SECRET = 'an-operator-secret-of-at-least-32-bytes-0123456789';
const LIVE = { stripeSecretKey: 'sk_live_credit402example', stripePublishableKey: 'pk_live_credit402example' };
const LIVE_ENV = { STRIPE_SECRET_KEY: LIVE.stripeSecretKey, STRIPE_PUBLISHABLE_KEY: LIVE.stripePublishableKey, CREDIT402_SERVER_SECRET: OWN_SECRET };
const UPSTREAM = { upstream: 'http://127.0.0.1:8000' };

/** What `startGateway` rejects with; a gateway it started all the same (the bug) is closed, and resolves undefined. */
async function gatewayRefusal(config: GatewayConfig, store: MemoryStore): Promise<unknown> {
  return startGateway(config, { store }).then(async (gateway) => void (await gateway.close()), (error: unknown) => error);
}

/** Runs a command with console.error captured; resolves its exit code and what it wrote. */
async function run(command: () => Promise<number | undefined>): Promise<{ code: number | undefined; output: string }> {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const code = await command();
    return { code, output: errors.mock.calls.flat().join(' ') };
  } finally {
    errors.mockRestore();
  }
}

describe('conformance control outside conformance runs', () => {
  it('is refused with live keys (CREDIT402_CONFORMANCE_CONTROL=1 beside STRIPE_SECRET_KEY=sk_live_…), by the server and the gateway', () => {
    const env = { ...LIVE_ENV, CREDIT402_CONFORMANCE_CONTROL: '1' };
    expect(codeOf(() => loadServerConfig({ env }))).toBe('ERR_CONFORMANCE_CONTROL');
    expect(codeOf(() => loadGatewayConfig({ env, overrides: UPSTREAM }))).toBe('ERR_CONFORMANCE_CONTROL');
    expect(() => loadServerConfig({ env })).toThrow(/conformance runs against the Stripe emulator only.*live key/);
  });

  it('is refused with test keys when the Stripe API is Stripe itself, not the emulator', () => {
    for (const stripeApi of ['stripe', 'https://api.stripe.com']) {
      expect(codeOf(() => loadServerConfig({ overrides: { conformanceControl: true, stripeApi } })), stripeApi).toBe('ERR_CONFORMANCE_CONTROL');
      expect(codeOf(() => loadGatewayConfig({ overrides: { ...UPSTREAM, conformanceControl: true, stripeApi } })), stripeApi).toBe('ERR_CONFORMANCE_CONTROL');
    }
    expect(() => loadServerConfig({ overrides: { conformanceControl: true, stripeApi: 'stripe' } })).toThrow(/Stripe itself/);
  });

  it('issue 34: is refused however the Stripe host is spelled: trailing dot, letter case, port, scheme, www, percent-encoding (was: "https://api.stripe.com." accepted)', () => {
    const spellings = [
      'https://api.stripe.com.', 'https://API.STRIPE.COM', 'https://Api.Stripe.Com.:443/', 'https://api.stripe.com:8443', 'http://api.stripe.com',
      'https://www.stripe.com', 'https://stripe.com.', 'https://user:pass@api.stripe.com/v1', 'https://api%2Estripe%2Ecom', 'https://api.stripe.com..',
      'https://files.stripe.com',
    ];
    for (const stripeApi of spellings) {
      expect(codeOf(() => loadServerConfig({ overrides: { conformanceControl: true, stripeApi } })), stripeApi).toBe('ERR_CONFORMANCE_CONTROL');
      expect(codeOf(() => loadGatewayConfig({ overrides: { ...UPSTREAM, conformanceControl: true, stripeApi } })), stripeApi).toBe('ERR_CONFORMANCE_CONTROL');
    }
    for (const stripeApi of ['http://127.0.0.1:12111', 'https://api.stripe.com.example.net', 'https://notstripe.com']) {
      expect(loadServerConfig({ overrides: { conformanceControl: true, stripeApi } }).conformanceControl, stripeApi).toBe(true);
    }
  });

  it('is accepted with test keys and the emulator, embedded or by URL, and changes nothing when off', () => {
    expect(loadServerConfig({ overrides: { conformanceControl: true } }).conformanceControl).toBe(true);
    expect(loadServerConfig({ overrides: { conformanceControl: true, stripeApi: 'http://127.0.0.1:12111' } }).conformanceControl).toBe(true);
    expect(loadGatewayConfig({ overrides: { ...UPSTREAM, conformanceControl: true, stripeApi: 'http://127.0.0.1:12111' } }).conformanceControl).toBe(true);
    expect(loadServerConfig({ env: { ...LIVE_ENV, CREDIT402_CONFORMANCE_CONTROL: '0' } }).conformanceControl).toBe(false);
  });

  it('is refused by startReferenceServer for a configuration that bypassed the loader, before anything starts', async () => {
    const config = { ...loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' } } }), ...LIVE, serverSecret: OWN_SECRET, stripeApi: 'stripe', conformanceControl: true };
    await expect(startReferenceServer(config)).rejects.toMatchObject({ code: 'ERR_CONFORMANCE_CONTROL' });
  });

  it('is refused by startGateway for a configuration that bypassed the loader, before anything starts (was: started, control routes mounted)', async () => {
    const config = { ...loadGatewayConfig({ overrides: { ...UPSTREAM, port: 0, store: { kind: 'memory' }, stripeApi: 'http://127.0.0.1:12111' } }), ...LIVE, serverSecret: OWN_SECRET, stripeApi: 'stripe', conformanceControl: true };
    const store = new MemoryStore();
    expect(await gatewayRefusal(config, store)).toMatchObject({ code: 'ERR_CONFORMANCE_CONTROL' });
    expect(await store.getClient('untouched')).toBeNull(); // the injected store was never taken (nor closed)
    const stripe = { ...config, stripeSecretKey: 'sk_test_credit402example', stripePublishableKey: 'pk_test_credit402example' };
    expect(await gatewayRefusal(stripe, store)).toMatchObject({ code: 'ERR_CONFORMANCE_CONTROL' });
  });

  it('credit402 serve and credit402 gateway exit 2 with the coded error', async () => {
    const fields = { ...LIVE, serverSecret: OWN_SECRET, stripeApi: 'stripe', conformanceControl: true };
    const served = await run(() => serveCommand(['--config', configFile('serve-control', fields)]));
    expect(served.code).toBe(2);
    expect(served.output).toContain('ERR_CONFORMANCE_CONTROL');
    const gated = await run(() => gatewayCommand(['--config', configFile('gateway-control', { ...fields, ...UPSTREAM })]));
    expect(gated.code).toBe(2);
    expect(gated.output).toContain('ERR_CONFORMANCE_CONTROL');
  });
});

describe('a public serverSecret', () => {
  it('knows the embedded default and the conformance profile\'s secret', () => {
    expect(PUBLIC_SERVER_SECRETS).toContain(loadServerConfig().serverSecret);
    expect(PUBLIC_SERVER_SECRETS).toContain('credit402-conformance-server-secret-do-not-use-in-production');
  });

  it('is refused with live keys, from the embedded defaults or a profile, by the server and the gateway', () => {
    const env = { STRIPE_SECRET_KEY: LIVE.stripeSecretKey, STRIPE_PUBLISHABLE_KEY: LIVE.stripePublishableKey };
    expect(codeOf(() => loadServerConfig({ env }))).toBe('ERR_SERVER_SECRET');
    expect(codeOf(() => loadGatewayConfig({ env, overrides: UPSTREAM }))).toBe('ERR_SERVER_SECRET');
    expect(codeOf(() => loadServerConfig({ overrides: { ...LIVE, stripeApi: 'stripe', serverSecret: 'credit402-conformance-server-secret-do-not-use-in-production' } }))).toBe('ERR_SERVER_SECRET');
    expect(() => loadServerConfig({ env })).toThrow(/public.*CREDIT402_SERVER_SECRET/);
  });

  it('is accepted in test mode (test keys, the emulator or Stripe\'s test mode); an own secret is accepted with live keys', () => {
    expect(loadServerConfig().serverSecret).toBe(PUBLIC_SERVER_SECRETS[0]);
    expect(loadServerConfig({ overrides: { stripeApi: 'stripe' } }).stripeApi).toBe('stripe');
    expect(loadServerConfig({ env: LIVE_ENV }).serverSecret).toBe(OWN_SECRET);
  });

  it('is refused by startReferenceServer for a configuration that bypassed the loader', async () => {
    const config = { ...loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' } } }), ...LIVE, stripeApi: 'stripe' };
    await expect(startReferenceServer(config)).rejects.toMatchObject({ code: 'ERR_SERVER_SECRET' });
  });

  it('is refused by startGateway for a configuration that bypassed the loader, before anything starts', async () => {
    const config = { ...loadGatewayConfig({ overrides: { ...UPSTREAM, port: 0, store: { kind: 'memory' }, stripeApi: 'http://127.0.0.1:12111' } }), ...LIVE, stripeApi: 'stripe' };
    expect(PUBLIC_SERVER_SECRETS).toContain(config.serverSecret);
    const store = new MemoryStore();
    expect(await gatewayRefusal(config, store)).toMatchObject({ code: 'ERR_SERVER_SECRET' });
    expect(await store.getClient('untouched')).toBeNull();
  });

  it('credit402 serve exits 2 with the coded error', async () => {
    const served = await run(() => serveCommand(['--config', configFile('serve-secret', { ...LIVE, stripeApi: 'stripe' })]));
    expect(served.code).toBe(2);
    expect(served.output).toContain('ERR_SERVER_SECRET');
  });

  it('issue 34: knows the README\'s example and a copy with surrounding whitespace or other letter case (was: accepted with live keys)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = /serverSecret: [^\n']*'([^']+)'/.exec(readme)?.[1];
    expect(example).toBe('example-server-secret-change-me-0123456789');
    for (const serverSecret of [example, ` ${example}`, `${example}\n`, `\t${example} `, example?.toUpperCase(), ' credit402-conformance-server-secret-do-not-use-in-production', 'credit402-example-server-secret-0123456789']) {
      expect(codeOf(() => loadServerConfig({ overrides: { ...LIVE, stripeApi: 'stripe', serverSecret } })), JSON.stringify(serverSecret)).toBe('ERR_SERVER_SECRET');
    }
  });

  it('issue 34: is refused by createCredit402 with live keys (was: no guard), and accepted with test keys, as the examples run', () => {
    const options = { serverSecret: ' example-server-secret-change-me-0123456789', store: new MemoryStore(), routes: { 'GET /api/weather': { amount: 500 } } };
    expect(codeOf(() => createCredit402({ ...options, ...LIVE }))).toBe('ERR_SERVER_SECRET');
    expect(() => createCredit402({ ...options, ...LIVE })).toThrow(/public example/);
    expect(codeOf(() => createCredit402({ ...options, ...LIVE, serverSecret: OWN_SECRET }))).toBeUndefined();
    expect(codeOf(() => createCredit402({ ...options, stripeSecretKey: 'sk_test_credit402example', stripePublishableKey: 'pk_test_credit402example' }))).toBeUndefined();
  });
});
