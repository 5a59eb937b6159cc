// A payment the processor cannot take (keys it rejects, no answer from its API): the documented answer, and one log line with a code.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { loadServerConfig, type ServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer } from './start-server.ts';

/** A Stripe API that refuses every key, as api.stripe.com answers an unknown or revoked one. */
let rejecting: Server;
let rejectingUrl = '';
beforeAll(async () => {
  rejecting = createServer((_req, res) => {
    const body = { error: { message: 'Invalid API Key provided: sk_test_****ence', type: 'invalid_request_error' } };
    res.writeHead(401, { 'content-type': 'application/json', 'request-id': 'req_rejected' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => rejecting.listen(0, '127.0.0.1', resolve));
  rejectingUrl = `http://127.0.0.1:${(rejecting.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => rejecting?.close(resolve));
});

/** A port where nothing listens: its connection is refused. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Starts the server on `stripeApi`, sends one first payment, and returns its answer and what the server logged. */
async function payOnce(stripeApi: string, overrides: Partial<ServerConfig> = {}): Promise<{ status: number; body: unknown; lines: string[] }> {
  const config = loadServerConfig({ overrides: { port: 0, host: '127.0.0.1', store: { kind: 'memory' }, stripeApi, ...overrides } });
  const server = await startReferenceServer(config);
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const { status, body } = await paidFetch(server.url, 'GET /api/weather', { paymentMethodId: 'pm_card_visa' });
    return { status, body, lines: errors.mock.calls.map((call) => format(...call)).join('\n').split('\n') };
  } finally {
    errors.mockRestore();
    await server.close();
  }
}

/** The answer of spec CR-7.20 / CR-8.7 to any processor failure that is not a card error. */
const PAYMENT_FAILED = { success: false, creditsRemaining: 0, clientId: '', error: 'Payment processing failed', errorCode: 'payment_failed' };

describe('a first payment the processor cannot take', () => {
  it('keys the Stripe API rejects (401): 402 payment_failed, and one line naming the rejected key, without a stack', async () => {
    const { status, body, lines } = await payOnce(rejectingUrl);
    expect(status).toBe(402);
    expect(body).toEqual(PAYMENT_FAILED);
    expect(lines).toEqual([expect.stringMatching(/^credit402: getCardFingerprint failed \[StripeAuthenticationError\]: .*Invalid API Key provided.*HTTP 401.* - the Stripe API rejected the secret key: check stripeSecretKey/)]);
  });

  it('no Stripe API listening (connection refused): 402 payment_failed, and one line with ECONNREFUSED, without a stack', async () => {
    const { status, body, lines } = await payOnce(await closedPortUrl());
    expect(status).toBe(402);
    expect(body).toEqual(PAYMENT_FAILED);
    expect(lines).toEqual([expect.stringMatching(/^credit402: getCardFingerprint failed \[ECONNREFUSED\]: .*StripeConnectionError.* - no answer from the Stripe API: check stripeApi/)]);
  });

  it('adds the stacks at logLevel debug', async () => {
    const { lines } = await payOnce(rejectingUrl, { logLevel: 'debug' });
    expect(lines[0]).toMatch(/^credit402: getCardFingerprint failed \[StripeAuthenticationError\]/);
    expect(lines.filter((line) => /^\s+at /.test(line)).length).toBeGreaterThan(0);
  });
});
