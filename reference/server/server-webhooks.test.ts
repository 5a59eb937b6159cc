// The reference server's robustness options: webhook configuration, and the embedded emulator's webhooks wired up.
import { describe, expect, it } from 'vitest';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { deriveClientId } from '../protocol/identity.ts';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { loadServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer } from './start-server.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';


describe('reference server webhook configuration', () => {
  it('CR-14.1 reads the signing secret from STRIPE_WEBHOOK_SECRET and checks the webhook path', () => {
    expect(loadServerConfig({ env: { STRIPE_WEBHOOK_SECRET: 'whsec_env' } }).stripeWebhookSecret).toBe('whsec_env');
    expect(codeOf(() => loadServerConfig({ overrides: { webhookPath: 'webhooks' } }))).toBe('ERR_WEBHOOK_PATH');
    expect(codeOf(() => loadServerConfig({ overrides: { webhookPath: '/hooks?x=1' } }))).toBe('ERR_WEBHOOK_PATH');
    expect(codeOf(() => loadServerConfig({ overrides: { webhookPath: '/api/weather' } }))).toBe('ERR_WEBHOOK_PATH');
    expect(codeOf(() => loadServerConfig({ overrides: { webhookPath: '/hooks/stripe' } }))).toBeUndefined();
  });

  it('CR-14.1 refuses to start with a malformed signing secret', async () => {
    const config = loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, stripeWebhookSecret: 'not-a-secret' } });
    await expect(startReferenceServer(config)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SECRET' });
  });

  it('with the embedded emulator, registers its own endpoint there, so a charge the request could not credit is credited', async () => {
    const store = new FlakyStore();
    // This test reads the emulator's events, so it asks for the control API, which embedded mode keeps off by default.
    const config = loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, webhookPath: '/hooks/stripe', emulatorControl: true } });
    const server = await startReferenceServer(config, { store });
    try {
      expect(server.webhookUrl).toBe(`${server.url}/hooks/stripe`);
      const control = new EmulatorControl(server.emulator!.controlUrl!);
      expect(JSON.stringify(await (await fetch(`${server.emulator!.controlUrl}/webhooks`)).json())).not.toContain('whsec_');
      store.failNext('creditTopUp');
      const response = await paidFetch(server.url, 'GET /api/weather', { paymentMethodId: 'pm_card_mastercard' });
      expect(response.status).toBe(503);
      const record = await control.waitForEvent((r) => r.event.type === 'payment_intent.succeeded' && r.attempts.length > 0);
      expect(record.attempts[0]?.status).toBe(200);
      const clientId = (record.event.data.object as { metadata: Record<string, string> }).metadata.credit402_client_id!;
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 50_000 }, topUps: 1 });
    } finally {
      await server.close();
    }
  });

  it("CR-14.3 embedded mode keeps the emulator's control API off and its webhook secret inside, and still credits by webhook", async () => {
    const store = new FlakyStore();
    const config = loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' } } });
    const server = await startReferenceServer(config, { store });
    try {
      expect(server.emulator?.controlUrl).toBeUndefined();
      for (const path of ['/_emulator', '/_emulator/webhooks', '/_emulator/events', '/_emulator/journal']) {
        const answer = await fetch(`${server.stripeApiUrl}${path}`);
        const text = await answer.text();
        expect(answer.status, path).toBeGreaterThanOrEqual(400);
        expect(text, path).not.toContain('whsec_');
      }
      store.failNext('creditTopUp');
      const response = await paidFetch(server.url, 'GET /api/weather', { paymentMethodId: 'pm_card_amex' });
      expect(response.status).toBe(503);
      const method = (await (await fetch(`${server.stripeApiUrl}/v1/payment_methods/pm_card_amex`, { headers: { authorization: `Bearer ${config.stripeSecretKey}` } })).json()) as { card: { fingerprint: string } };
      const clientId = deriveClientId(method.card.fingerprint, config.serverSecret);
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && (await store.getClient(clientId)) === null) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 50_000 }, topUps: 1 });
    } finally {
      await server.close();
    }
  });
});
