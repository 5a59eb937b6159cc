// Redirects within and across origins (CR-16.9), over real sockets to two tiny credit402 servers on two ports.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeBase64Json } from '../protocol/base64-json.ts';
import { RedirectingCredit402Server, type ReceivedRequest } from 'credit402-tooling/testing/redirecting-server';
import { TINY_MIN_TOP_UP } from 'credit402-tooling/testing/tiny-credit402-server';
import { createCredit402Fetch, MemoryClientIdStorage } from './index.ts';

describe('redirects keep each origin apart (CR-16.9)', () => {
  const a = new RedirectingCredit402Server();
  const b = new RedirectingCredit402Server();
  /** A new client per test: its storage, and the URL every callback was told, in order. */
  let storage: MemoryClientIdStorage;
  let asked: string[];
  let pay: ReturnType<typeof createCredit402Fetch>;
  const payloadOf = (request: ReceivedRequest) => {
    const decoded = typeof request.headers.payment === 'string' ? decodeBase64Json(request.headers.payment) : undefined;
    return decoded?.ok ? (decoded.value as Record<string, unknown>) : undefined;
  };
  /** Pays A once, so that a clientId of A is kept; returns it. */
  const fundA = async () => {
    expect((await pay(`${a.url}/paid`)).status).toBe(200);
    const clientId = await storage.get(a.url);
    expect(clientId).toMatch(/^[0-9a-f]{64}$/);
    a.received = [];
    asked = [];
    return clientId ?? '';
  };
  /** B received nothing of A: no `payment` header, and none of A's clientIds anywhere. */
  const expectNothingOfA = () => {
    expect(b.received.map((request) => request.headers.payment)).toEqual(b.received.map(() => undefined));
    for (const clientId of a.balances.keys()) expect(JSON.stringify(b.received)).not.toContain(clientId);
    expect(b.charges).toBe(0);
  };

  beforeAll(async () => {
    await Promise.all([a.start(), b.start()]);
  });
  beforeEach(() => {
    a.clear();
    b.clear();
    a.redirects.clear();
    storage = new MemoryClientIdStorage();
    asked = [];
    pay = createCredit402Fetch({
      storage,
      onPaymentRequired: async (info) => {
        asked.push(info.url);
        return { paymentMethodId: 'pm_card_visa' };
      },
    });
  });
  afterAll(() => Promise.all([a.stop(), b.stop()]));

  it.each([301, 302, 303, 307, 308])('a %i from origin A to origin B sends B nothing of A, and B\'s challenge is returned unpaid', async (status) => {
    await fundA();
    a.redirects.set('/moved', { status, location: `${b.url}/paid` });
    const response = await pay(`${a.url}/moved`, { method: 'POST', headers: { authorization: 'Bearer a-only' }, body: 'the body' });
    expect(response.status).toBe(402);
    expect(response.url).toBe(`${b.url}/paid`);
    expect(payloadOf(a.received[0] as ReceivedRequest)).toMatchObject({ clientId: await storage.get(a.url) });
    expect(b.received).toHaveLength(1);
    expectNothingOfA();
    expect(b.received[0]?.headers.authorization).toBeUndefined();
    const keepsMethod = status === 307 || status === 308;
    expect(b.received[0]).toMatchObject({ method: keepsMethod ? 'POST' : 'GET', body: keepsMethod ? 'the body' : '' });
    expect(asked).toEqual([]);
    expect(await storage.get(b.url)).toBeUndefined();
  });

  it('a redirect to B before any payment: the callback is not asked to pay B, and nothing is paid', async () => {
    a.redirects.set('/moved', { status: 307, location: `${b.url}/paid` });
    const response = await pay(`${a.url}/moved`);
    expect(response.status).toBe(402);
    expect(asked).toEqual([]);
    expectNothingOfA();
    expect(a.charges).toBe(0);
    expect(pay.getSessionSpending()).toBe(0);
  });

  it('a paying request redirected to B sends B no payment method, and its top-up stays counted', async () => {
    a.redirects.set('/paid', { status: 307, location: `${b.url}/paid`, paying: true });
    const response = await pay(`${a.url}/paid`);
    expect(response.status).toBe(402);
    expect(response.url).toBe(`${b.url}/paid`);
    expect(asked).toEqual([`${a.url}/paid`]);
    expect(payloadOf(a.received[1] as ReceivedRequest)).toMatchObject({ paymentMethodId: 'pm_card_visa' });
    expectNothingOfA();
    expect(b.requests).toEqual([undefined]);
    expect(pay.getSessionSpending()).toBe(TINY_MIN_TOP_UP);
  });

  it('a same-origin redirect is followed with the clientId, and its challenge is paid at the URL that issued it', async () => {
    a.redirects.set('/old', { status: 302, location: '/paid' });
    expect((await pay(`${a.url}/old`)).status).toBe(200);
    expect(asked).toEqual([`${a.url}/paid`]);
    expect(a.received.map((request) => request.path)).toEqual(['/old', '/paid', '/paid']);
    expect(payloadOf(a.received[2] as ReceivedRequest)).toMatchObject({ paymentMethodId: 'pm_card_visa' });
    const clientId = await storage.get(a.url);
    a.received = [];
    const response = await pay(`${a.url}/old`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${a.url}/paid`);
    const [first, second] = a.received.map(payloadOf);
    expect(first).toMatchObject({ clientId });
    expect(second).toMatchObject({ clientId });
    expect(second?.requestId).not.toBe(first?.requestId);
    expect(a.charges).toBe(1);
    expect(asked).toHaveLength(1);
  });

  it('honours redirect: manual (the redirect is returned) and redirect: error (the call fails), sending B nothing', async () => {
    await fundA();
    a.redirects.set('/moved', { status: 307, location: `${b.url}/paid` });
    const manual = await pay(`${a.url}/moved`, { redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe(`${b.url}/paid`);
    await expect(pay(`${a.url}/moved`, { redirect: 'error' })).rejects.toThrow(TypeError);
    expect(b.received).toEqual([]);
    expect(a.received.map(payloadOf)).toEqual([expect.objectContaining({ clientId: expect.any(String) }), expect.objectContaining({ clientId: expect.any(String) })]);
  });

  it('drops a caller\'s own payment header on a redirect to another origin', async () => {
    a.redirects.set('/moved', { status: 308, location: `${b.url}/paid` });
    expect((await pay(`${a.url}/moved`, { headers: { payment: 'e30=' } })).status).toBe(402);
    expect(a.received[0]?.headers.payment).toBe('e30=');
    expectNothingOfA();
  });

  it('gives up after 20 redirects', async () => {
    a.redirects.set('/loop', { status: 302, location: '/loop' });
    await expect(pay(`${a.url}/loop`)).rejects.toThrow(/more than 20 redirects/);
    expect(a.received).toHaveLength(21);
  });
});
