// Unit tests of the kit's scripted 402 server over real sockets: the seed's processing order on two origins, the script's knobs, the records.
import { freePort } from 'credit402-stripe-emulator/free-port';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedServer } from './scripted-server.ts';
import { encodeJson } from './wire.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await ScriptedServer.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const decode = (value: string | null): Record<string, unknown> => JSON.parse(Buffer.from(value ?? '', 'base64').toString('utf8')) as Record<string, unknown>;

async function send(path: string, payment?: unknown, origin: 'A' | 'B' = 'A', init: RequestInit = {}) {
  const headers: Record<string, string> = payment === undefined ? {} : { payment: typeof payment === 'string' ? payment : encodeJson(payment) };
  const response = await fetch(`${server.url(origin)}${path}`, { ...init, headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('the scripted server as a seed-following server', () => {
  it('challenges in the header and the body, charges a new payment, then deducts from the clientId it gave', async () => {
    const challenge = await send('/api/weather');
    expect(challenge.status).toBe(402);
    expect(decode(challenge.headers.get('payment-required'))).toEqual(JSON.parse(challenge.body));
    expect(JSON.parse(challenge.body)).toMatchObject({ stripe402Version: 1, accepts: [{ scheme: 'stripe', amount: 500, minTopUp: 50000, currency: 'usd' }] });
    const paid = await send('/api/weather', { paymentMethodId: 'pm_1', topUpAmount: 60000 });
    const response = decode(paid.headers.get('payment-response'));
    expect(paid.status).toBe(200);
    expect(response).toMatchObject({ success: true, creditsRemaining: 59500, chargeId: expect.stringMatching(/^pi_/) });
    const spent = await send('/api/cheap', { clientId: response.clientId });
    expect(decode(spent.headers.get('payment-response'))).toEqual({ success: true, creditsRemaining: 59400, clientId: response.clientId });
    expect(server.charges).toHaveLength(1);
    expect(server.requests.map((request) => request.outcome)).toEqual(['challenge', 'charged', 'served']);
    expect(server.requests[1]?.payment).toEqual({ paymentMethodId: 'pm_1', topUpAmount: 60000 });
  });

  it('deducts the derived clientId first (seed step 5.4), refuses a small top-up, an unreadable header, and an empty balance', async () => {
    await send('/api/weather', { paymentMethodId: 'pm_1' });
    await send('/api/weather', { paymentMethodId: 'pm_1' });
    expect(server.charges).toHaveLength(1);
    expect(JSON.parse((await send('/api/weather', { paymentMethodId: 'pm_2', topUpAmount: 100 })).body)).toMatchObject({ errorCode: 'top_up_below_minimum' });
    expect(JSON.parse((await send('/api/weather', 'not base64!')).body)).toEqual({ success: false, creditsRemaining: 0, clientId: '', error: 'Malformed payment header', errorCode: 'invalid_payment' });
    const insufficient = await send('/api/weather', { clientId: 'f'.repeat(64) });
    expect(JSON.parse(insufficient.body)).toMatchObject({ error: 'insufficient_credits' });
  });

  it('is two servers: each origin derives its own clientIds and keeps its own balances', async () => {
    const a = decode((await send('/api/weather', { paymentMethodId: 'pm_1' }, 'A')).headers.get('payment-response'));
    const b = decode((await send('/api/weather', { paymentMethodId: 'pm_1' }, 'B')).headers.get('payment-response'));
    expect(a.clientId).not.toBe(b.clientId);
    expect(JSON.parse((await send('/api/weather', { clientId: a.clientId }, 'B')).body)).toMatchObject({ error: 'insufficient_credits' });
    expect(server.requests.map((request) => request.origin)).toEqual(['A', 'B', 'B']);
  });

  it('answers free routes, echoes the paid POST body and keeps the query in the record', async () => {
    expect((await send('/free')).status).toBe(200);
    expect((await send('/missing')).status).toBe(404);
    expect((await send('/broken')).status).toBe(500);
    const echo = await fetch(`${server.url('A')}/api/echo?x=1`, { method: 'POST', body: '{"a":1}', headers: { payment: encodeJson({ paymentMethodId: 'pm_1' }) } });
    expect(await echo.text()).toBe('{"a":1}');
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', target: '/api/echo?x=1', body: '{"a":1}' });
  });
});

describe('the script', () => {
  it('answers the next paid request with a payment error or a challenge, then pays again', async () => {
    server.script.paymentError = { code: 'card_declined', scope: 'next' };
    expect(JSON.parse((await send('/api/weather', { paymentMethodId: 'pm_1' })).body)).toMatchObject({ success: false, errorCode: 'card_declined' });
    server.script.challengeAgain = 'next';
    expect((await send('/api/weather', { paymentMethodId: 'pm_1' })).headers.get('payment-required')).not.toBeNull();
    expect((await send('/api/weather', { paymentMethodId: 'pm_1' })).status).toBe(200);
  });

  it('answers 503 service_unavailable with Retry-After 0', async () => {
    server.script.unavailable = 'every';
    const answer = await send('/api/weather');
    expect([answer.status, answer.headers.get('retry-after'), JSON.parse(answer.body).errorCode]).toEqual([503, '0', 'service_unavailable']);
  });

  it('breaks the challenge header or the next charge\'s payment-response', async () => {
    server.script.brokenChallenge = 'no publishableKey';
    expect(decode((await send('/api/weather')).headers.get('payment-required'))).toMatchObject({ accepts: [{ scheme: 'stripe', amount: 500 }] });
    expect((decode((await send('/api/weather')).headers.get('payment-required')).accepts as unknown[])[0]).not.toHaveProperty('publishableKey');
    server.reset();
    server.script.brokenPaymentResponse = 'clientId not 64 hex';
    expect(decode((await send('/api/weather', { paymentMethodId: 'pm_1' })).headers.get('payment-response')).clientId).toBe('not-a-client-id');
  });

  it('lists another scheme first with unknown members (CR-16.16)', async () => {
    server.script.forwardCompatible = true;
    const accepts = decode((await send('/api/weather')).headers.get('payment-required')).accepts as Array<Record<string, unknown>>;
    expect(accepts.map((element) => element.scheme)).toEqual(['future-scheme', 'stripe']);
  });

  it('redirects the paid requests of one origin to the same target on another, unpaid ones challenged (CR-16.9)', async () => {
    server.script.redirectPaid = { from: 'A', to: server.url('B') };
    expect((await send('/api/weather?x=1')).status).toBe(402);
    const redirected = await send('/api/weather?x=1', { paymentMethodId: 'pm_1' }, 'A', { redirect: 'manual' });
    expect([redirected.status, redirected.headers.get('location')]).toEqual([307, `${server.url('B')}/api/weather?x=1`]);
    expect((await send('/api/weather', { paymentMethodId: 'pm_1' }, 'B')).status).toBe(200);
    expect(server.charges.map((charge) => charge.origin)).toEqual(['B']);
    expect(server.requests.map((request) => request.outcome)).toEqual(['challenge', `redirected to ${server.url('B')}`, 'charged']);
  });

  it('charges every concurrent first payment that finds no balance, as the seed does, when the charge takes time', async () => {
    server.script.chargeDelayMs = 100;
    await Promise.all([1, 2, 3].map(() => send('/api/cheap', { paymentMethodId: 'pm_1' })));
    expect(server.charges).toHaveLength(3);
  });
});

describe('the ports of the scripted servers', () => {
  it('listens on the ports given for A and B, and on a free one for an origin given none', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const chosen = await ScriptedServer.start({ A: a, B: b });
    try {
      expect([chosen.url('A'), chosen.url('B')]).toEqual([`http://127.0.0.1:${a}`, `http://127.0.0.1:${b}`]);
      expect((await fetch(`${chosen.url('B')}/free`)).status).toBe(200);
    } finally {
      await chosen.close();
    }
    const half = await ScriptedServer.start({ B: b });
    try {
      expect(half.url('B')).toBe(`http://127.0.0.1:${b}`);
      expect(half.url('A')).not.toBe(`http://127.0.0.1:${b}`);
    } finally {
      await half.close();
    }
  });

  it('refuses to start on a port already taken, naming the origin and the port', async () => {
    const taken = new URL(server.url('A')).port;
    await expect(ScriptedServer.start({ B: Number(taken) })).rejects.toThrow(`could not listen on 127.0.0.1:${taken} for server B`);
  });
});
