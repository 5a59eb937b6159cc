// The retried request keeps the caller's body and headers, over a real socket to a tiny echo server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from '../protocol/base64-json.ts';
import { createCredit402Fetch } from './index.ts';

const CLIENT_ID = 'c'.repeat(64);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CHALLENGE = {
  stripe402Version: 1,
  resource: { url: '/echo' },
  accepts: [{ scheme: 'stripe', currency: 'usd', amount: 100, minTopUp: 50_000, publishableKey: 'pk_test_echo' }],
};

/** Answers 402 with a challenge until a `payment` header comes, then 200 echoing method, headers, body and payment. */
function echoServer(): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const payment = request.headers.payment;
      if (typeof payment !== 'string') {
        const body = JSON.stringify(CHALLENGE);
        response.writeHead(402, { 'content-type': 'application/json', 'payment-required': encodeBase64Json(CHALLENGE) }).end(body);
        return;
      }
      const decoded = decodeBase64Json(payment);
      const echo = { method: request.method, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), payment: decoded.ok ? decoded.value : null };
      const paid = { success: true, creditsRemaining: 49_900, clientId: CLIENT_ID, chargeId: 'pi_echo' };
      response.writeHead(200, { 'content-type': 'application/json', 'payment-response': encodeBase64Json(paid) }).end(JSON.stringify(echo));
    });
  });
}

interface Echo {
  method: string;
  headers: Record<string, string>;
  body: string;
  payment: unknown;
}

describe('the retried request', () => {
  let server: Server;
  let url: string;
  const pay = () => createCredit402Fetch({ onPaymentRequired: async () => ({ paymentMethodId: 'pm_card_visa' }) });

  beforeAll(async () => {
    server = echoServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const echoOf = async (response: Response): Promise<Echo> => {
    expect(response.status).toBe(200);
    return (await response.json()) as Echo;
  };

  it('keeps a string body', async () => {
    const echo = await echoOf(await pay()(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hello"}' }));
    expect(echo).toMatchObject({ method: 'POST', body: '{"text":"hello"}', payment: { stripe402Version: 1, paymentMethodId: 'pm_card_visa' } });
    expect(echo.headers['content-type']).toBe('application/json');
  });

  it('keeps a streamed body, read once before the first attempt', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed '));
        controller.enqueue(new TextEncoder().encode('body'));
        controller.close();
      },
    });
    const init = { method: 'PUT', body: stream, duplex: 'half' } as RequestInit;
    expect((await echoOf(await pay()(url, init))).body).toBe('streamed body');
  });

  it('keeps binary, form and Request bodies', async () => {
    expect((await echoOf(await pay()(url, { method: 'POST', body: new Uint8Array([104, 105]) }))).body).toBe('hi');
    const form = await echoOf(await pay()(url, { method: 'POST', body: new URLSearchParams({ a: '1', b: 'é' }) }));
    expect(form.body).toBe('a=1&b=%C3%A9');
    expect(form.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect((await echoOf(await pay()(new Request(url, { method: 'POST', body: 'from a Request' })))).body).toBe('from a Request');
  });

  it.each([
    ['an object', { 'x-trace': 't1', accept: 'application/json' }],
    ['a Headers', new Headers({ 'x-trace': 't1', accept: 'application/json' })],
    ['an array of pairs', [['x-trace', 't1'], ['accept', 'application/json']] as Array<[string, string]>],
  ])('keeps caller headers given as %s', async (_kind, headers) => {
    const echo = await echoOf(await pay()(url, { headers }));
    expect(echo.headers).toMatchObject({ 'x-trace': 't1', accept: 'application/json' });
    expect(echo.payment).toEqual({ stripe402Version: 1, paymentMethodId: 'pm_card_visa', requestId: expect.stringMatching(UUID) });
  });

  it('keeps the headers of a Request input, and sends the stored clientId next time', async () => {
    const client = pay();
    await echoOf(await client(new Request(url, { headers: { 'x-trace': 'r1' } })));
    const echo = await echoOf(await client(new Request(url, { headers: { 'x-trace': 'r2' } })));
    expect(echo.headers['x-trace']).toBe('r2');
    expect(echo.payment).toEqual({ stripe402Version: 1, clientId: CLIENT_ID, requestId: expect.stringMatching(UUID) });
  });
});
