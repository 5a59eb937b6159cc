// The conformance control routes: validation, store faults by clientId, records; mounted by both frameworks only when asked.
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';
import { ConformanceControl, controlPathTaken, parseFaultSpec, RECORDS_PATH, STORE_FAULTS_PATH } from './conformance-control.ts';
import { loadServerConfig } from '../compose/engine-config.ts';
import { HANDLED_PATH, REQUEST_ID_HEADER } from './handler-runs.ts';
import { StoreFaults } from './store-faults.ts';

const A = 'a'.repeat(64);

describe('parseFaultSpec', () => {
  it('accepts a clientId, an operation, and optional count and skip', () => {
    expect(parseFaultSpec(JSON.stringify({ clientId: A, operation: 'creditTopUp' }))).toEqual({ clientId: A, operation: 'creditTopUp', skip: 0 });
    expect(parseFaultSpec(JSON.stringify({ clientId: A, operation: 'any', count: 2, skip: 1 }))).toEqual({ clientId: A, operation: 'any', skip: 1, count: 2 });
  });

  it('accepts a hold of the call (delayMs), after which it fails, or with proceed goes on to the store', () => {
    expect(parseFaultSpec(JSON.stringify({ clientId: A, operation: 'deductBalance', delayMs: 5000 }))).toEqual({ clientId: A, operation: 'deductBalance', skip: 0, delayMs: 5000 });
    expect(parseFaultSpec(JSON.stringify({ clientId: A, operation: 'deductBalance', count: 1, delayMs: 5000, proceed: true }))).toEqual({
      clientId: A, operation: 'deductBalance', skip: 0, count: 1, delayMs: 5000, proceed: true,
    });
  });

  it.each([
    [undefined, /JSON object/],
    ['[]', /JSON object/],
    [JSON.stringify({ clientId: A.toUpperCase(), operation: 'getClient' }), /clientId must be 64 lowercase hex/],
    [JSON.stringify({ clientId: A, operation: 'close' }), /operation must be one of deductBalance, /],
    [JSON.stringify({ clientId: A, operation: 'getClient', count: 0 }), /count must be an integer from 1/],
    [JSON.stringify({ clientId: A, operation: 'getClient', skip: 1.5 }), /skip must be an integer from 0/],
    [JSON.stringify({ clientId: A, operation: 'getClient', after: 1 }), /unknown member after/],
    [JSON.stringify({ clientId: A, operation: 'getClient', delayMs: 0 }), /delayMs must be an integer from 1 to 60000/],
    [JSON.stringify({ clientId: A, operation: 'getClient', delayMs: 60_001 }), /delayMs must be an integer from 1 to 60000/],
    [JSON.stringify({ clientId: A, operation: 'getClient', proceed: true }), /proceed needs delayMs/],
    [JSON.stringify({ clientId: A, operation: 'getClient', delayMs: 10, proceed: true, replyLost: true }), /proceed and replyLost exclude each other/],
    [JSON.stringify({ clientId: A, operation: 'getClient', delayMs: 10, proceed: 'yes' }), /proceed must be true or false/],
  ])('rejects %s', (body, message) => {
    expect(() => parseFaultSpec(body)).toThrow(message);
  });
});

describe('ConformanceControl', () => {
  const control = () => new ConformanceControl(new MemoryStore(), new StoreFaults());

  it('arms, lists and removes faults by clientId', async () => {
    const c = control();
    const armed = await c.handle({ method: 'POST', url: STORE_FAULTS_PATH, body: JSON.stringify({ clientId: A, operation: 'getClient', count: 1 }) });
    expect(armed).toEqual({ status: 201, body: { fault: { clientId: A, operation: 'getClient', skip: 0, count: 1, fired: 0 } } });
    expect((await c.handle({ method: 'GET', url: `${STORE_FAULTS_PATH}?clientId=${A}` })).body).toMatchObject({ faults: [{ operation: 'getClient' }] });
    expect((await c.handle({ method: 'DELETE', url: `${STORE_FAULTS_PATH}?clientId=${A}` })).body).toMatchObject({ faults: [{ fired: 0 }] });
    expect((await c.handle({ method: 'GET', url: STORE_FAULTS_PATH })).body).toEqual({ faults: [] });
  });

  it('answers 400 with a message for bad input, 405 for other methods', async () => {
    const c = control();
    expect(await c.handle({ method: 'POST', url: STORE_FAULTS_PATH, body: '{"clientId":1}' })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/clientId/) } });
    expect(await c.handle({ method: 'GET', url: `${RECORDS_PATH}?clientId=xyz` })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/64 lowercase hex/) } });
    expect(await c.handle({ method: 'GET', url: `${RECORDS_PATH}?clientId=${A}&clientId=${A}` })).toMatchObject({ status: 400 });
    expect(await c.handle({ method: 'PUT', url: STORE_FAULTS_PATH })).toMatchObject({ status: 405, headers: { allow: 'GET, POST, DELETE' } });
    expect(await c.handle({ method: 'POST', url: RECORDS_PATH })).toMatchObject({ status: 405 });
  });

  it('answers the records of a client, and 501 for a store without a log', async () => {
    const store = new MemoryStore();
    await store.creditTopUp({ clientId: A, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_1' });
    const answer = await new ConformanceControl(store, new StoreFaults()).handle({ method: 'GET', url: `${RECORDS_PATH}?clientId=${A}` });
    expect(answer.body).toMatchObject({ client: { balances: { usd: 50_000 }, topUps: 1 }, records: [{ type: 'topup', amount: 50_000, paymentIntentId: 'pi_1' }] });
    const none = await new ConformanceControl(new MemoryStore(), new StoreFaults()).handle({ method: 'GET', url: `${RECORDS_PATH}?clientId=${A}` });
    expect(none.body).toEqual({ client: null, records: [] });
    const noLog = new ConformanceControl(new MemoryStore({ recordTransactions: false }), new StoreFaults());
    expect((await noLog.handle({ method: 'GET', url: `${RECORDS_PATH}?clientId=${A}` })).status).toBe(501);
  });

  it('reads records from the store as it is, whatever faults are armed', async () => {
    const faults = new StoreFaults();
    faults.arm({ clientId: A, operation: 'any', skip: 0 });
    expect((await new ConformanceControl(new MemoryStore(), faults).handle({ method: 'GET', url: `${RECORDS_PATH}?clientId=${A}` })).status).toBe(200);
  });

  it('finds a configured route on a control path', () => {
    expect(controlPathTaken(['GET /api/weather', `POST ${STORE_FAULTS_PATH}`])).toBe(STORE_FAULTS_PATH);
    expect(controlPathTaken(['GET /free'])).toBeUndefined();
  });
});

describe('the conformanceControl option', () => {
  it('is off by default, on by the flag\'s override or CREDIT402_CONFORMANCE_CONTROL, and checked', () => {
    expect(loadServerConfig().conformanceControl).toBeUndefined();
    expect(loadServerConfig({ overrides: { conformanceControl: true } }).conformanceControl).toBe(true);
    expect(loadServerConfig({ env: { CREDIT402_CONFORMANCE_CONTROL: '1' } }).conformanceControl).toBe(true);
    expect(loadServerConfig({ env: { CREDIT402_CONFORMANCE_CONTROL: 'false' } }).conformanceControl).toBe(false);
    expect(() => loadServerConfig({ env: { CREDIT402_CONFORMANCE_CONTROL: 'yes' } })).toThrow(/must be true or false/);
  });
});

describe('the handled route (harness/PROFILE.md, Handler runs)', () => {
  const shapes = [['fastify', 'table'], ['fastify', 'per-route'], ['express', 'table'], ['express', 'per-route'], ['http', 'table']] as const;
  const withControl = shapes.map(([framework, gating]) => useReferenceStack({ framework, gating, conformanceControl: true }));
  const without = shapes.map(([framework, gating]) => useReferenceStack({ framework, gating }));
  const handled = async (url: string) => {
    const response = await fetch(`${url}${HANDLED_PATH}?ids=r1`);
    return { status: response.status, body: response.ok ? await response.json() : await response.text() };
  };

  it.each(shapes.map((shape, i) => [shape.join(' '), i] as const))('on %s is mounted with conformance control only', async (_shape, i) => {
    await fetch(`${withControl[i]!.server.url}/free`, { headers: { [REQUEST_ID_HEADER]: 'r1' } });
    expect(await handled(withControl[i]!.server.url)).toEqual({ status: 200, body: { r1: 1 } });
    expect((await handled(without[i]!.server.url)).status).toBe(404);
  });
});

describe.each(['fastify', 'express', 'hono'] as const)('the control routes on %s', (framework) => {
  const stack = useReferenceStack({ framework, conformanceControl: true });
  const plain = useReferenceStack({ framework });
  const post = (body: string, type = 'application/json') =>
    fetch(`${stack.server.url}${STORE_FAULTS_PATH}`, { method: 'POST', headers: { 'content-type': type }, body });

  it('makes the store fail for one client until the faults are removed, and reads its records', async () => {
    const first = await paidFetch(stack.server.url, 'GET /api/weather', { paymentMethodId: 'pm_card_visa' });
    const { clientId } = first.paymentResponse as { clientId: string };
    const armed = await post(JSON.stringify({ clientId, operation: 'deductBalance' }));
    expect(armed.status).toBe(201);
    const refused = await paidFetch(stack.server.url, 'GET /api/weather', { clientId });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ errorCode: 'service_unavailable' });
    const removed = await fetch(`${stack.server.url}${STORE_FAULTS_PATH}?clientId=${clientId}`, { method: 'DELETE' });
    expect(await removed.json()).toEqual({ faults: [{ clientId, operation: 'deductBalance', skip: 0, fired: 1 }] });
    expect((await paidFetch(stack.server.url, 'GET /api/weather', { clientId })).paymentResponse).toMatchObject({ creditsRemaining: 49_000 });
    const records = (await (await fetch(`${stack.server.url}${RECORDS_PATH}?clientId=${clientId}`)).json()) as { client: unknown; records: Array<{ type: string }> };
    expect(records.client).toMatchObject({ balances: { usd: 49_000 }, topUps: 1 });
    expect(records.records.map((record) => record.type)).toEqual(['topup', 'deduction', 'deduction']);
  });

  it('answers bad input with 400 and a message, whatever the media type', async () => {
    for (const response of [await post('{'), await post('{"clientId":"x"}', 'text/plain'), await post('')]) {
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
  });

  it('is not mounted unless asked for', async () => {
    expect((await fetch(`${plain.server.url}${RECORDS_PATH}?clientId=${A}`)).status).toBe(404);
    expect((await fetch(`${plain.server.url}${STORE_FAULTS_PATH}`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(plain.server.storeFaults).toBeUndefined();
  });
});
