// End to end over a socket (CR-6.9, issue 34.1): a refund retried after the client's retry was served as the repeat gives nothing back, so the request is paid once.
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createCredit402 } from '../credit402.ts';
import { decodeBase64Json } from '../protocol/base64-json.ts';
import type { Gate } from '../gate/index.ts';
import { REFUND_RETRY_DELAYS_MS } from '../gate/handler-refund.ts';
import { ScriptedStore, type StoreScript } from 'credit402-tooling/testing/scripted-store';
import { listenLocal } from 'credit402-tooling/testing/listen-local';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { credit402Middleware } from './express/express.ts';
import { credit402Fastify } from './fastify/fastify.ts';

const CLIENT = 'a'.repeat(64);
/** Past the last retry of a refund, with room for the deadline of each attempt. */
const PAST_RETRIES_MS = REFUND_RETRY_DELAYS_MS.reduce((sum, pause) => sum + pause, 0) + 600;

/** The request ids `/flaky` has seen, in order; `fail` records one and says whether it is its first attempt (which fails). */
function flakyHandler(): { seen: string[]; fail(requestId: string): boolean } {
  const seen: string[] = [];
  return {
    seen,
    fail(requestId) {
      const first = !seen.includes(requestId);
      seen.push(requestId);
      return first;
    },
  };
}

/** The `requestId` of the request's payment header, or '' when it has none. */
function requestIdOf(header: unknown): string {
  const decoded = typeof header === 'string' ? decodeBase64Json(header) : undefined;
  const payload = decoded?.ok ? decoded.value : undefined;
  const requestId = typeof payload === 'object' && payload !== null ? Reflect.get(payload, 'requestId') : undefined;
  return typeof requestId === 'string' ? requestId : '';
}

/** Starts an app with the paid route `GET /flaky` (500 for the first attempt of a request id, 200 for the next). */
const apps = {
  async fastify(gate: Gate, handler: ReturnType<typeof flakyHandler>) {
    const app = Fastify();
    await app.register(credit402Fastify, { gate });
    app.get('/flaky', async (request) => {
      if (handler.fail(requestIdOf(request.headers.payment))) throw new Error('handler failed');
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
  async express(gate: Gate, handler: ReturnType<typeof flakyHandler>) {
    const app = express();
    app.use(credit402Middleware(gate));
    app.get('/flaky', (req, res) => {
      if (handler.fail(requestIdOf(req.headers.payment))) throw new Error('handler failed');
      res.json({ ok: true });
    });
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(500).end());
    return listenLocal(app);
  },
};

const FIRST_REFUND_ATTEMPT: ReadonlyArray<[string, StoreScript]> = [['fails', 'reject'], ['hangs past the store deadline', 'hang']];

describe.each(['fastify', 'express'] as const)('CR-6.9 a refund racing the served repeat on %s', (framework) => {
  let close: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await close?.();
  });

  it.each(FIRST_REFUND_ATTEMPT)('the first refund attempt %s, the client\'s retry is served as the repeat, and the request stays paid once', async (_name, script) => {
    const store = new ScriptedStore([{ method: 'refundDeduction', nth: 1, script }]);
    await store.inner.addBalance(CLIENT, 'usd', 10_000);
    const reported: string[] = [];
    const gate = createCredit402({
      stripeSecretKey: 'sk_test_refund_race',
      stripePublishableKey: 'pk_test_refund_race',
      serverSecret: 'credit402-refund-race-test-secret-0123456789',
      store,
      routes: { 'GET /flaky': { amount: 500 } },
      refundOnHandlerError: true,
      storeTimeoutMs: 100,
      onError: (error, stage) => void reported.push(`${stage}: ${(error as { code?: string }).code ?? String(error)}`),
    });
    const handler = flakyHandler();
    const app = await apps[framework](gate, handler);
    close = app.close;
    const payment = { clientId: CLIENT, requestId: 'req-race-1' };

    expect((await paidFetch(app.url, 'GET /flaky', payment)).status).toBe(500);
    // The client retries at once, before the refund's retry: its deduction is kept, so the retry is its repeat.
    const retry = await paidFetch(app.url, 'GET /flaky', payment);
    expect(retry.status).toBe(200);
    expect(retry.paymentResponse).toMatchObject({ success: true, creditsRemaining: 9_500 });
    await new Promise((resolve) => setTimeout(resolve, PAST_RETRIES_MS));

    expect(handler.seen).toEqual(['req-race-1', 'req-race-1']);
    expect((await store.inner.getClient(CLIENT))?.balances.usd).toBe(9_500);
    expect(await store.inner.listTransactions?.(CLIENT)).toHaveLength(1);
    expect(store.calls.filter((call) => call === 'refundDeduction')).toHaveLength(2);
    expect(reported.at(-1)).toBe('refundOnHandlerError: ERR_REFUND_SUPERSEDED');
  });
});
