// ProcessorView against a real emulator: faults armed until the target answers, their fired counts, and judging only once nothing is in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { ProcessorView } from './processor.ts';

const KEY = 'sk_test_processorview';

describe('ProcessorView', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(() => emulator.close());

  /** A PaymentIntent creation for `paymentMethod`, as a target would send it. */
  const charge = (paymentMethod: string, key = `k-${paymentMethod}`) =>
    fetch(`${emulator.url}/v1/payment_intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
      body: new URLSearchParams({ amount: '500', currency: 'usd', payment_method: paymentMethod, confirm: 'true', 'payment_method_types[]': 'card' }),
    });
  const view = async (marker: string): Promise<ProcessorView> => {
    const processor = new ProcessorView(emulator.url, true);
    await processor.start(KEY);
    processor.markers.add(marker);
    return processor;
  };

  it('keeps an until-answer fault armed for every attempt, disarms it after the answer, and reports how often it fired', async () => {
    const processor = await view('pm_card_visa');
    await processor.injectFault({ kind: 'error500', method: 'POST', path: '/v1/payment_intents', count: 'until-answer', match: { payment_method: 'pm_card_visa' } });
    for (let attempt = 0; attempt < 3; attempt++) expect((await charge('pm_card_visa')).status).toBe(500);
    await processor.afterAnswer();
    expect((await charge('pm_card_visa')).status).toBe(200);
    expect(processor.faultReport()).toEqual([{ kind: 'error500', count: 'until-answer', scope: 'POST /v1/payment_intents with payment_method=pm_card_visa', fired: 3 }]);
    expect(processor.unfiredFaults()).toEqual([]);
    await processor.finish();
  });

  it('names the faults that never fired', async () => {
    const processor = await view('pm_card_mastercard');
    await processor.injectFault({ kind: 'timeout', method: 'GET', path: '/v1/customers/search', count: 'until-answer', contains: { query: 'f'.repeat(64) } });
    await processor.afterAnswer();
    expect(processor.unfiredFaults()).toEqual([`timeout until the target answered on GET /v1/customers/search whose query mentions ${'f'.repeat(64)}: never fired`]);
    await processor.finish();
  });

  it('judges the journal only once the scenario has no request in flight', async () => {
    const processor = await view('pm_card_amex');
    await processor.injectFault({ kind: 'delay', method: 'POST', path: '/v1/payment_intents', count: 1, delayMs: 600, match: { payment_method: 'pm_card_amex' } });
    const started = Date.now();
    const pending = charge('pm_card_amex');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const entries = await processor.scenarioEntries();
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    expect(entries.map((entry) => [entry.status, entry.fault, entry.inFlight])).toEqual([[200, 'delay', undefined]]);
    await pending;
    await processor.finish();
  });

  it('fails with the requests still in flight when they outlast the bound', async () => {
    const processor = await view('pm_card_discover');
    await processor.injectFault({ kind: 'timeout', method: 'POST', path: '/v1/payment_intents', count: 1, delayMs: 2_000, match: { payment_method: 'pm_card_discover' } });
    const pending = charge('pm_card_discover').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(processor.settle(300)).rejects.toThrow(/in flight after 300 ms[\s\S]*POST \/v1\/payment_intents[\s\S]*fault timeout/);
    await processor.settle();
    await pending;
    await processor.finish();
  });
});
