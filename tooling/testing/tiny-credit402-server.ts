// Test helper: a tiny seed-following credit402 server for one route on loopback, to test clients (charges, balances, every request's payload).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeBase64Json, encodeBase64Json } from 'credit402/protocol';

/** The route's price and minimum top-up, in units. */
export const TINY_PRICE = 100;
export const TINY_MIN_TOP_UP = 50_000;

/** The challenge of the tiny server's route (with `insufficient_credits` when `error` is given). */
export const tinyChallenge = (error?: string) => ({
  stripe402Version: 1,
  resource: { url: '/paid' },
  accepts: [{ scheme: 'stripe', currency: 'usd', amount: TINY_PRICE, minTopUp: TINY_MIN_TOP_UP, publishableKey: 'pk_test_x' }],
  ...(error ? { error, message: 'Insufficient credits for this request' } : {}),
});

/**
 * Every path is one gated route: balances per clientId, a charge per payment (slow: 50 ms, so concurrent calls overlap
 * it), `pm_declined` declined, a top-up below minTopUp refused. `/free` is a free route answering 200.
 */
export class TinyCredit402Server {
  readonly balances = new Map<string, number>();
  charges = 0;
  /** The decoded `payment` payload of every request, undefined for none. */
  requests: Array<Record<string, unknown> | undefined> = [];
  readonly server: Server = createServer((request, response) => void this.#answer(request.url ?? '/', String(request.headers.payment ?? ''), response));
  url = '';

  /** Listens on a free loopback port; `url` is then its origin. */
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Forgets balances, charges and requests. */
  clear(): void {
    this.balances.clear();
    this.charges = 0;
    this.requests = [];
  }

  async #answer(path: string, header: string, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const failure = (errorCode: string, error: string) => send(402, { success: false, creditsRemaining: 0, clientId: '', error, errorCode });
    const decoded = header === '' ? undefined : decodeBase64Json(header);
    const payload = decoded?.ok ? (decoded.value as Record<string, unknown>) : undefined;
    this.requests.push(payload);
    if (path === '/free') return void send(200, { free: true });
    const clientId = typeof payload?.clientId === 'string' ? payload.clientId : undefined;
    const balance = clientId === undefined ? undefined : this.balances.get(clientId);
    if (balance !== undefined && clientId !== undefined && balance >= TINY_PRICE) {
      this.balances.set(clientId, balance - TINY_PRICE);
      return void send(200, { served: true }, { 'payment-response': encodeBase64Json({ success: true, creditsRemaining: balance - TINY_PRICE, clientId }) });
    }
    if (typeof payload?.paymentMethodId !== 'string') {
      const body = tinyChallenge(balance === undefined ? undefined : 'insufficient_credits');
      return void send(402, body, { 'payment-required': encodeBase64Json(body) });
    }
    const topUp = typeof payload.topUpAmount === 'number' ? payload.topUpAmount : TINY_MIN_TOP_UP;
    if (topUp < TINY_MIN_TOP_UP) return void failure('top_up_below_minimum', `topUpAmount must be at least ${TINY_MIN_TOP_UP}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (payload.paymentMethodId === 'pm_declined') return void failure('card_declined', 'Your card was declined.');
    this.charges++;
    const id = clientId ?? String(this.charges).padStart(64, '0');
    const credited = (balance ?? 0) + topUp - TINY_PRICE;
    this.balances.set(id, credited);
    const paid = { success: true, creditsRemaining: credited, clientId: id, chargeId: `pi_${this.charges}` };
    send(200, { served: true }, { 'payment-response': encodeBase64Json(paid) });
  }
}
