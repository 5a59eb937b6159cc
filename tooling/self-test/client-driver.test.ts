// The client drivers (credit402/client's and the Python example's) fed JSON lines as the kit does, against a tiny local server.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDriver, type DriverProcess } from '../testing/driver-process.ts';
import { REPO_ROOT, targetCommand } from '../testing/kit.ts';
import { TINY_MIN_TOP_UP, TinyCredit402Server } from '../testing/tiny-credit402-server.ts';

const DRIVERS = [
  { name: 'credit402/client', command: targetCommand('tooling/self-test/client-driver.ts'), strict: true },
  { name: 'the Python example', command: `python3 -B ${join(REPO_ROOT, 'examples/python-client/driver.py')}`, strict: false },
];
const APPROVE = { paymentMethodId: 'pm_card_visa', topUpAmount: TINY_MIN_TOP_UP };

describe.each(DRIVERS)('the driver of $name', ({ command, strict }) => {
  const tiny = new TinyCredit402Server();
  let driver: DriverProcess;
  let id = 0;
  const send = (instruction: Record<string, unknown>) => driver.send({ id: ++id, ...instruction });
  const fetchAll = (count: number, callback: Record<string, unknown> = APPROVE, path = '/paid') =>
    send({ op: 'fetch', calls: Array.from({ length: count }, () => ({ url: `${tiny.url}${path}`, method: 'GET', headers: {}, body: null })), callback });

  beforeAll(async () => {
    await tiny.start();
    driver = startDriver(command);
  });
  beforeEach(async () => {
    tiny.clear();
    expect(await send({ op: 'reset' })).toEqual({ id, ok: true });
  });
  afterEach(() => {
    if (driver.stderr() !== '') process.stderr.write(driver.stderr());
  });
  afterAll(async () => {
    expect(await driver.close()).toBe(0);
    await tiny.stop();
  });

  it('pays once, records the callback, and presents the clientId up front next time', async () => {
    const first = await fetchAll(1);
    expect(first).toEqual({
      id,
      results: [{ status: 200, headers: expect.objectContaining({ 'payment-response': expect.any(String) }), body: '{"served":true}', error: null }],
      callbacks: [{ url: `${tiny.url}/paid`, amount: 100, minTopUp: TINY_MIN_TOP_UP, currency: 'usd', publishableKey: 'pk_test_x', error: null }],
    });
    const second = await fetchAll(1);
    expect(second).toMatchObject({ results: [{ status: 200, error: null }], callbacks: [] });
    expect(tiny.requests).toHaveLength(3);
    expect(tiny.requests[2]).toMatchObject({ clientId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(tiny.charges).toBe(1);
  });

  it('returns the 402 when the callback declines, and reports a payment error with its code and message', async () => {
    expect(await fetchAll(1, { decline: true })).toMatchObject({ results: [{ status: 402, error: null }], callbacks: [{ error: null }] });
    const refused = await fetchAll(1, { paymentMethodId: 'pm_declined' });
    expect(refused).toMatchObject({ results: [{ status: null, error: { kind: 'payment', code: 'card_declined', message: 'Your card was declined.' } }] });
    expect(tiny.charges).toBe(0);
  });

  it('never sends a top-up below minTopUp', async () => {
    await fetchAll(1, { paymentMethodId: 'pm_card_visa', topUpAmount: 10_000 });
    expect(tiny.requests.filter((payload) => typeof payload?.topUpAmount === 'number' && payload.topUpAmount < TINY_MIN_TOP_UP)).toEqual([]);
  });

  it('answers an unknown op with an error', async () => {
    expect(await send({ op: 'dance' })).toEqual({ id, error: 'unknown op' });
  });

  it.runIf(strict)('shares one first payment among concurrent calls, and reports a refused top-up as kind limit', async () => {
    const five = await fetchAll(5);
    expect((five.results as Array<{ status: number }>).map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
    expect(five.callbacks).toHaveLength(1);
    expect(tiny.charges).toBe(1);
    expect(await send({ op: 'reset' })).toMatchObject({ ok: true });
    const low = await fetchAll(1, { paymentMethodId: 'pm_card_visa', topUpAmount: 10_000 });
    expect(low).toMatchObject({ results: [{ status: null, error: { kind: 'limit', code: null } }] });
  });

  it.runIf(strict)('enforces the spending limit, keeps the clientId across a restart, and forgets it on reset', async () => {
    expect(await send({ op: 'reset', spendingLimit: 60_000 })).toMatchObject({ ok: true });
    await fetchAll(1);
    const clientId = [...tiny.balances.keys()][0] ?? '';
    tiny.balances.set(clientId, 0);
    expect(await fetchAll(1)).toMatchObject({ results: [{ status: null, error: { kind: 'limit' } }], callbacks: [{ error: 'insufficient_credits' }] });
    expect(tiny.charges).toBe(1);
    tiny.balances.set(clientId, 1_000);
    expect(await send({ op: 'restart' })).toEqual({ id, ok: true });
    expect(await fetchAll(1)).toMatchObject({ results: [{ status: 200 }], callbacks: [] });
    expect(tiny.requests.at(-1)).toMatchObject({ clientId });
    await send({ op: 'reset' });
    await fetchAll(1, { decline: true });
    expect(tiny.requests.at(-1)).toBeUndefined();
  });

  it.runIf(strict)('refuses an invalid instruction with its id', async () => {
    expect(await send({ op: 'fetch', calls: [{ url: 'ftp://x' }], callback: APPROVE })).toEqual({ id, error: expect.stringContaining('url') });
    expect(await send({ op: 'fetch', calls: [{ url: `${tiny.url}/paid` }], callback: { topUpAmount: 1 } })).toEqual({ id, error: expect.stringContaining('paymentMethodId') });
    expect(await send({ op: 'reset', spendingLimit: -1 })).toEqual({ id, error: expect.stringContaining('spendingLimit') });
  });
});
