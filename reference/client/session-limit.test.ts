// maxTopUpPerSession against servers whose answers never prove a charge (CR-16.11), over real sockets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from '../protocol/base64-json.ts';
import { tinyChallenge, TINY_MIN_TOP_UP } from 'credit402-tooling/testing/tiny-credit402-server';
import { createCredit402Fetch, Credit402SpendingLimitError } from './index.ts';

const CLIENT_ID = 'd'.repeat(64);
type Paying = 'paid without chargeId' | 'payment_failed';

/** A server that challenges every request without a payment method, and answers each paying one as `paying` says, after 30 ms. */
class PayingServer {
  /** Requests that carried a payment method. */
  topUps = 0;
  readonly server: Server;
  url = '';

  constructor(paying: Paying) {
    this.server = createServer((request, response) => {
      const header = request.headers.payment;
      const decoded = typeof header === 'string' ? decodeBase64Json(header) : undefined;
      const payload = decoded?.ok ? (decoded.value as Record<string, unknown>) : undefined;
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (typeof payload?.paymentMethodId !== 'string') {
        const challenge = tinyChallenge(payload?.clientId === undefined ? undefined : 'insufficient_credits');
        return void send(402, challenge, { 'payment-required': encodeBase64Json(challenge) });
      }
      this.topUps++;
      setTimeout(() => {
        if (paying === 'payment_failed') send(402, { success: false, creditsRemaining: 0, clientId: '', error: 'Payment processing failed', errorCode: 'payment_failed' });
        else send(200, { served: true }, { 'payment-response': encodeBase64Json({ success: true, creditsRemaining: 0, clientId: CLIENT_ID }) });
      }, 30);
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/paid`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('maxTopUpPerSession (CR-16.11)', () => {
  const servers: PayingServer[] = [];
  const started = async (paying: Paying) => {
    const server = await new PayingServer(paying).start();
    servers.push(server);
    return server;
  };
  const client = () =>
    createCredit402Fetch({ maxTopUpPerSession: 2 * TINY_MIN_TOP_UP, onPaymentRequired: async () => ({ paymentMethodId: 'pm_card_visa' }) });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  it.each<Paying>(['paid without chargeId', 'payment_failed'])('counts every top-up sent to a server answering %s: 6 calls send 2 under a limit of 2', async (paying) => {
    const server = await started(paying);
    const pay = client();
    const outcomes: string[] = [];
    for (let call = 0; call < 6; call++) {
      outcomes.push(await pay(server.url).then((response) => String(response.status), (error: unknown) => (error as Error).name));
    }
    const answered = paying === 'payment_failed' ? 'Credit402PaymentError' : '200';
    expect(outcomes).toEqual([answered, answered, ...Array(4).fill('Credit402SpendingLimitError')]);
    expect(server.topUps).toBe(2);
    expect(pay.getSessionSpending()).toBe(2 * TINY_MIN_TOP_UP);
    if (paying === 'paid without chargeId') expect(pay.getLastPayment()).toEqual({ success: true, creditsRemaining: 0, clientId: CLIENT_ID });
  });

  it('counts a top-up when it is sent: concurrent calls to 4 origins send 2 under a limit of 2', async () => {
    const origins = await Promise.all([1, 2, 3, 4].map(() => started('payment_failed')));
    const pay = client();
    const results = await Promise.allSettled(origins.map((server) => pay(server.url)));
    const refused = results.filter((result) => result.status === 'rejected' && result.reason instanceof Credit402SpendingLimitError);
    expect(refused).toHaveLength(2);
    expect(origins.reduce((sum, server) => sum + server.topUps, 0)).toBe(2);
    expect(pay.getSessionSpending()).toBe(2 * TINY_MIN_TOP_UP);
  });
});
