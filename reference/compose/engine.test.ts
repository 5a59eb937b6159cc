// The engine's composition as a plain function: one store, one gate and webhook engine on it, the control only when asked, and a close that closes the store.
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { loadServerConfig } from './engine-config.ts';
import { composeEngine } from './engine.ts';

/** The embedded defaults with a memory store and an API URL (nothing is called: no request is made). */
const config = (overrides: Record<string, unknown> = {}) =>
  loadServerConfig({ overrides: { store: { kind: 'memory' }, stripeApi: 'http://127.0.0.1:9', reconcileEveryMs: 0, ...overrides } });

describe('composeEngine', () => {
  it('builds the gate on the store, no webhook endpoint without a secret, no control and no reconciliation by default', async () => {
    const store = new MemoryStore();
    const engine = await composeEngine(config(), { store });
    expect(engine.store).toBe(store);
    expect(engine.webhook).toBeUndefined();
    expect(engine.control).toBeUndefined();
    expect(engine.storeFaults).toBeUndefined();
    expect(engine.reconciler).toBeUndefined();
    const decision = await engine.gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: undefined });
    expect(decision.action === 'respond' && decision.status).toBe(402);
    await engine.close(100);
    await expect(store.getClient('x')).rejects.toThrow(/closed/);
  });

  it('mounts the webhook engine with the configured secret (or the one given) and the control with conformanceControl', async () => {
    const engine = await composeEngine(config({ conformanceControl: true }), { webhookSecret: 'whsec_given' });
    expect(engine.webhook?.path).toBe('/webhooks/stripe');
    expect(engine.control).toBeDefined();
    expect(engine.storeFaults).toBeDefined();
    await engine.close(100);
  });

  it('refuses a route on a control path with the caller\'s error code, closing the store it opened', async () => {
    const store = new MemoryStore();
    const routes = { 'GET /_conformance/records': { amount: 1 } };
    const error = await composeEngine(config({ conformanceControl: true, routes }), { store, configErrorCode: 'ERR_GATEWAY_CONFIG' }).catch((e: unknown) => e);
    expect(codeOf(() => { throw error; })).toBe('ERR_GATEWAY_CONFIG');
    await expect(store.getClient('x')).rejects.toThrow(/closed/);
  });

  it('builds a gate without its route table for per-route gating: every path is then free to the gate', async () => {
    const engine = await composeEngine(config(), { withoutRouteTable: true });
    expect((await engine.gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: undefined })).action).toBe('pass');
    await engine.close(100);
  });
});
