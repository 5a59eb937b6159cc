// The conformance profile's failing handlers (`failingHandlers`, CR-4.7, CR-13.27) on every framework and gating of the
// reference server: the handler of `answer500` answers 500 naming its route, the one of `throw` throws and the framework
// answers 500; both count their run, the answer keeps the deduction's payment-response, and the price stays taken.
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { HANDLED_PATH, REQUEST_ID_HEADER } from '../conformance-control/handler-runs.ts';
import { FAILING_RUN_MARK, loadServerConfig, type Framework, type Gating } from '../compose/engine-config.ts';
import { startReferenceServer, type RunningServer } from './start-server.ts';

const ROUTES = {
  'GET /api/weather': { amount: 500 },
  'GET /api/fails': { amount: 400 },
  'GET /api/throws': { amount: 350 },
};
const FAILING = { 'GET /api/fails': 'answer500', 'GET /api/throws': 'throw' } as const;

describe('server configuration: failingHandlers', () => {
  it('names configured routes, each answer500 or throw', () => {
    expect(loadServerConfig({ overrides: { routes: ROUTES, failingHandlers: FAILING } }).failingHandlers).toEqual(FAILING);
    expect(() => loadServerConfig({ overrides: { routes: ROUTES, failingHandlers: { 'GET /api/other': 'throw' } } })).toThrow(/not a key of routes or freeRoutes/);
    expect(codeOf(() => loadServerConfig({ overrides: { routes: ROUTES, failingHandlers: { 'GET /api/fails': 'crash' } as never } }))).toBe('ERR_SERVER_CONFIG');
    expect(codeOf(() => loadServerConfig({ overrides: { routes: ROUTES, failingHandlers: ['GET /api/fails'] as never } }))).toBe('ERR_SERVER_CONFIG');
  });
});

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(() => emulator?.close());

const servers: Array<[Framework, Gating, 'express4' | undefined]> = [
  ['fastify', 'table', undefined],
  ['fastify', 'per-route', undefined],
  ['express', 'table', undefined],
  ['express', 'per-route', undefined],
  ['express', 'table', 'express4'],
  ['http', 'table', undefined],
];

describe.each(servers)('failing handlers on %s, %s gating %s', (framework, gating, major) => {
  let server: RunningServer;
  beforeAll(async () => {
    const config = loadServerConfig({
      overrides: { port: 0, store: { kind: 'memory' }, stripeApi: emulator.url, framework, gating, routes: ROUTES, failingHandlers: FAILING, conformanceControl: true },
    });
    server = await startReferenceServer(config, major ? { express: express4 } : {});
  });
  afterAll(() => server?.close());

  const runs = async (id: string): Promise<unknown> => ((await (await fetch(`${server.url}${HANDLED_PATH}?ids=${id}`)).json()) as Record<string, unknown>)[id];

  it('keeps the deduction of a handler that answers 500 or throws, the answer carrying its payment-response, the handler run once', async () => {
    const card = await createPaymentMethod(emulator.url, { publishable: 'pk_test_credit402reference', secret: 'sk_test_credit402reference' }, uniqueCardNumber());
    const paid = await paidFetch(server.url, 'GET /api/fails', { paymentMethodId: card.paymentMethodId }, { [REQUEST_ID_HEADER]: `fails-${framework}-${gating}` });
    expect(paid.status).toBe(500);
    expect(paid.body).toMatchObject({ route: 'GET /api/fails', creditsRemaining: 49_600 });
    expect(paid.paymentResponse).toMatchObject({ success: true, creditsRemaining: 49_600, chargeId: expect.stringMatching(/^pi_/) });
    expect(await runs(`fails-${framework}-${gating}`)).toBe(1);
    const { clientId } = paid.paymentResponse as { clientId: string };

    const thrown = await paidFetch(server.url, 'GET /api/throws', { clientId }, { [REQUEST_ID_HEADER]: `throws-${framework}-${gating}` });
    expect(thrown.status).toBe(500);
    expect(thrown.body).toEqual({ error: 'Internal Server Error' });
    expect(thrown.paymentResponse).toEqual({ success: true, creditsRemaining: 49_250, clientId });
    expect(await runs(`throws-${framework}-${gating}`)).toBe(1);

    const next = await paidFetch(server.url, 'GET /api/weather', { clientId });
    expect(next.paymentResponse).toMatchObject({ creditsRemaining: 48_750 });
  });
});

describe('answer500IfMarked (the fault load\'s flaky route)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const config = loadServerConfig({
      overrides: {
        port: 0, store: { kind: 'memory' }, stripeApi: emulator.url, routes: ROUTES, failingHandlers: { 'GET /api/fails': 'answer500IfMarked' }, conformanceControl: true,
      },
    });
    server = await startReferenceServer(config);
  });
  afterAll(() => server?.close());

  it('answers 500 to a request whose conformance-request-id ends in the mark, 200 to the others', async () => {
    const card = await createPaymentMethod(emulator.url, { publishable: 'pk_test_credit402reference', secret: 'sk_test_credit402reference' }, uniqueCardNumber());
    const marked = await paidFetch(server.url, 'GET /api/fails', { paymentMethodId: card.paymentMethodId }, { [REQUEST_ID_HEADER]: `flaky${FAILING_RUN_MARK}` });
    expect(marked.status).toBe(500);
    const { clientId } = marked.paymentResponse as { clientId: string };
    const plain = await paidFetch(server.url, 'GET /api/fails', { clientId }, { [REQUEST_ID_HEADER]: 'flaky' });
    expect(plain.status).toBe(200);
  });
});
