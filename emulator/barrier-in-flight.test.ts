// Requests in flight: journaled at arrival, listed by GET /_emulator/in-flight; barriers that hold requests until all arrived.
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

const PATH = '/v1/payment_intents';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const create = (key: string, payment_method = 'pm_card_visa') =>
  t.stripe.paymentIntents.create(
    { amount: 500, currency: 'usd', payment_method, confirm: true, allowed_payment_method_types: ['card'] },
    { idempotencyKey: key },
  );

describe('in flight', () => {
  it('journals a delayed request at arrival, in flight until answered', async () => {
    await t.control.injectFault({ path: PATH, kind: 'delay', delayMs: 300 });
    const pending = create('k');
    await sleep(100);
    const held = await t.control.inFlight();
    expect(held).toMatchObject({ count: 1, entries: [{ seq: 1, path: PATH, status: null, inFlight: true, fault: 'delay', idempotencyKey: 'k' }] });
    expect(await t.control.journal()).toMatchObject([{ seq: 1, inFlight: true }]);
    await pending;
    expect(await t.control.inFlight()).toEqual({ count: 0, entries: [] });
    const [entry] = await t.control.journal();
    expect(entry).toMatchObject({ seq: 1, status: 200, fault: 'delay' });
    expect(entry?.inFlight).toBeUndefined();
    expect(entry?.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('numbers requests by arrival: a held request keeps the number it arrived with', async () => {
    await t.control.injectFault({ path: PATH, kind: 'delay', delayMs: 200 });
    const slow = create('slow');
    await sleep(50);
    await t.stripe.customers.create({});
    await slow;
    expect((await t.control.journal()).map((e) => [e.seq, e.path])).toEqual([
      [1, PATH],
      [2, '/v1/customers'],
    ]);
  });
});

describe('barrier', () => {
  it('holds the first count matching requests until all arrived, then lets them go together', async () => {
    const fault = await t.control.injectFault({ path: PATH, kind: 'barrier', count: 3, delayMs: 5_000, match: { payment_method: 'pm_card_visa' } });
    const first = create('same');
    const second = create('same');
    await sleep(150);
    expect((await t.control.inFlight()).count).toBe(2);
    expect((await create('other', 'pm_card_mastercard')).status).toBe('succeeded');
    const started = Date.now();
    const results = await Promise.all([first, second, create('same')]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(new Set(results.map((intent) => intent.id)).size).toBe(1);
    const held = (await t.control.journal({ path: PATH })).filter((e) => e.fault === 'barrier');
    expect(held.map((e) => [e.status, e.replayed])).toEqual([
      [200, false],
      [200, true],
      [200, true],
    ]);
    expect(await t.control.fault(fault.id)).toMatchObject({ fired: 3, remaining: 0, active: false });
    expect((await create('after')).status).toBe('succeeded');
  });

  it('lets a lone request go after delayMs, and is spent afterwards', async () => {
    const fault = await t.control.injectFault({ path: PATH, kind: 'barrier', count: 5, delayMs: 300 });
    const started = Date.now();
    expect((await create('alone')).status).toBe('succeeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await t.control.fault(fault.id)).toMatchObject({ fired: 1, remaining: 4, active: false });
    const quick = Date.now();
    await create('next');
    expect(Date.now() - quick).toBeLessThan(250);
  });

  it('lets held requests go when the barrier is removed', async () => {
    const fault = await t.control.injectFault({ path: PATH, kind: 'barrier', count: 2, delayMs: 10_000 });
    const pending = create('held');
    await sleep(100);
    await t.control.removeFault(fault.id);
    expect((await pending).status).toBe('succeeded');
  });
});
