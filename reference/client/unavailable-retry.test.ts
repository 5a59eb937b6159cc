// A 503 service_unavailable is retried with the same payload, request id included, so the gate never deducts it twice.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from '../protocol/base64-json.ts';
import { Credit402PaymentError, createCredit402Fetch, MemoryClientIdStorage } from './index.ts';

const CLIENT_ID = 'd'.repeat(64);
const UNAVAILABLE = { success: false, creditsRemaining: 0, clientId: '', error: 'outcome unknown', errorCode: 'service_unavailable' };

/** Answers 503 to the first `failures` requests, then 200; keeps every decoded payment payload it saw. */
function flakyServer(seen: unknown[], state: { failures: number }): Server {
  return createServer((request, response) => {
    const decoded = decodeBase64Json(String(request.headers.payment ?? ''));
    seen.push(decoded.ok ? decoded.value : null);
    if (state.failures > 0) {
      state.failures--;
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end(JSON.stringify(UNAVAILABLE));
      return;
    }
    const paid = { success: true, creditsRemaining: 9_500, clientId: CLIENT_ID };
    response.writeHead(200, { 'content-type': 'application/json', 'payment-response': encodeBase64Json(paid) }).end('{}');
  });
}

describe('retrying an outage', () => {
  const seen: unknown[] = [];
  const state = { failures: 0 };
  let server: Server;
  let url: string;
  const storage = new MemoryClientIdStorage();
  const client = (unavailableRetries?: number) =>
    createCredit402Fetch({ onPaymentRequired: async () => null, storage, unavailableRetries });

  beforeAll(async () => {
    server = flakyServer(seen, state);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/paid`;
    await storage.set(new URL(url).origin, CLIENT_ID);
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the same payload again, request id included, and a new request id for the next request', async () => {
    state.failures = 1;
    const fetchPaid = client();
    expect((await fetchPaid(url)).status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({ clientId: CLIENT_ID, requestId: expect.any(String) });
    await fetchPaid(url);
    expect((seen[2] as { requestId: string }).requestId).not.toBe((seen[0] as { requestId: string }).requestId);
  });

  it('gives up after unavailableRetries and throws the 503 as a retryable payment error', async () => {
    state.failures = 3;
    const error = await client(1)(url).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Credit402PaymentError);
    expect((error as Credit402PaymentError).retryable).toBe(true);
    expect(seen).toHaveLength(2);
    state.failures = 0;
  });

  it('does not retry when unavailableRetries is 0, and refuses a broken value', async () => {
    state.failures = 1;
    await expect(client(0)(url)).rejects.toBeInstanceOf(Credit402PaymentError);
    expect(seen).toHaveLength(1);
    expect(() => client(-1)).toThrow(RangeError);
  });
});
