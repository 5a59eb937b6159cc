// Unit tests of the gate's routing and challenge decisions (no processor call can happen on these paths).
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { methodAndTarget } from 'credit402-tooling/testing/request-line';
import { createGate } from './gate.ts';
import { untouchableProcessor } from 'credit402-tooling/testing/untouchable-processor';
import { TEST_GATE_KEYS } from 'credit402-tooling/testing/test-gate-keys';

const processor = untouchableProcessor('on this path');

const gate = createGate({
  ...TEST_GATE_KEYS,
  store: new MemoryStore(),
  processor,
  routes: { 'GET /api/weather': { amount: 500 }, 'HEAD /api/head-only': { amount: 5 } },
});

const actionOf = async (method: string, url: string) => (await gate.handle({ method, url, paymentHeader: undefined })).action;

/** Unpaid requests (`METHOD target`) by the gate's action: `respond` on a gated route (the challenge), `pass` on a free one (untouched). */
const UNPAID_ACTIONS = {
  respond: ['GET /api/weather', 'GET /api/weather?city=Oslo', 'GET http://example.test/api/weather?x=1', 'GET /api/%77eather', 'GET /api/we%61ther', 'HEAD /api/weather', 'HEAD /api/head-only'],
  pass: ['POST /api/weather', 'get /api/weather', 'GET /api/weather/', 'GET /API/weather', 'GET /api/%57eather', 'GET /api%2Fweather', 'GET //api/weather', 'GET /api/head-only'],
};

describe('gate routing', () => {
  it.each(Object.entries(UNPAID_ACTIONS).flatMap(([action, requests]) => requests.map((request) => [request, action])))('answers %s unpaid: %s', async (request, action) => {
    expect(await actionOf(...methodAndTarget(request))).toBe(action);
  });

  it.each([
    ['GET', '/api/weather#frag'],
    ['GET', '/api/./weather'],
    ['GET', 'http://example.test/api/../api/weather'],
  ])('CR-4.10 refuses %s %s as an ambiguous request target', async (method, url) => {
    expect(await gate.handle({ method, url, paymentHeader: undefined })).toMatchObject({ status: 400, body: { error: 'ambiguous_request_target' } });
  });

  it('answers a payload without clientId or paymentMethodId with the plain challenge', async () => {
    const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: Buffer.from('{}').toString('base64') });
    expect(decision).toMatchObject({ action: 'respond', status: 402 });
    expect(decision.action === 'respond' && decision.body).not.toHaveProperty('error');
  });

  it('treats duplicated payment headers as malformed', async () => {
    const one = Buffer.from('{}').toString('base64');
    const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: [one, one] });
    expect(decision).toMatchObject({ action: 'respond', status: 402, body: { errorCode: 'invalid_payment', error: 'Malformed payment header' } });
  });
});
