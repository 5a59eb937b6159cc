// The control API and CLI: journal filters, reset, health, errors, and the standalone command.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rawCall, useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

describe('control API', () => {
  it('journals API requests with decoded params, filters them, and clears them', async () => {
    await t.control.reset();
    await t.stripe.customers.create({ metadata: { k: 'v' }, email: 'a@example.com' });
    await t.stripe.paymentMethods.retrieve('pm_card_visa', { expand: ['customer'] });
    await rawCall(t.emulator, 'GET', '/v1/nothing');
    const all = await t.control.journal();
    expect(all).toMatchObject([
      { seq: 1, method: 'POST', path: '/v1/customers', params: { metadata: { k: 'v' }, email: 'a@example.com' }, status: 200, replayed: false, response: { object: 'customer' } },
      { seq: 2, method: 'GET', path: '/v1/payment_methods/pm_card_visa', params: { expand: ['customer'] }, status: 200 },
      { seq: 3, method: 'GET', path: '/v1/nothing', status: 404 },
    ]);
    expect(all[0]?.requestId).toMatch(/^req_/);
    expect(new Date(all[0]?.time ?? '').getTime()).toBeGreaterThan(0);
    expect((await t.control.journal({ method: 'get' })).map((e) => e.seq)).toEqual([2, 3]);
    expect((await t.control.journal({ path: '/v1/payment_methods' })).map((e) => e.seq)).toEqual([2]);
    expect((await t.control.journal({ since: 2 })).map((e) => e.seq)).toEqual([3]);
    await t.control.clearJournal();
    expect(await t.control.journal()).toEqual([]);
    await t.stripe.customers.create({});
    expect((await t.control.journal()).map((e) => e.seq)).toEqual([4]);
  });

  it('resets objects, journal and faults but keeps the test payment methods', async () => {
    const customer = await t.stripe.customers.create({});
    await t.control.injectFault({ path: '/v1/charges', kind: 'error500' });
    await t.control.reset();
    expect(await t.control.journal()).toEqual([]);
    expect(await t.control.faults()).toEqual([]);
    await expect(t.stripe.customers.retrieve(customer.id)).rejects.toMatchObject({ statusCode: 404 });
    expect((await t.stripe.paymentMethods.retrieve('pm_card_visa')).id).toBe('pm_card_visa');
  });

  it('answers health, unknown routes and bad bodies, journaling no control call', async () => {
    await t.control.clearJournal();
    expect(await (await fetch(t.emulator.controlUrl)).json()).toEqual({ ok: true });
    expect((await fetch(`${t.emulator.controlUrl}/nope`)).status).toBe(404);
    const bad = await fetch(`${t.emulator.controlUrl}/search-lag`, { method: 'POST', body: '{"ms":-1}' });
    expect(bad.status).toBe(400);
    const notJson = await fetch(`${t.emulator.controlUrl}/faults`, { method: 'POST', body: 'nope' });
    expect(await notJson.json()).toEqual({ error: { message: 'body must be JSON' } });
    expect(await t.control.journal()).toEqual([]);
  });
});

describe('cli', () => {
  it('starts standalone and prints the base and control URLs', async () => {
    const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const output = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('Control API')) resolve(text);
        });
        child.once('exit', (code) => reject(new Error(`cli exited with ${code}: ${text}`)));
      });
      const url = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      expect(output).toContain(`Control API at ${url}/_emulator`);
      const response = await fetch(`${url}/v1/payment_methods/pm_card_visa`, { headers: { authorization: 'Bearer sk_test_x' } });
      expect(response.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
