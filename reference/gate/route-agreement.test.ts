// Unit tests of the route agreement: the remembering form answers as routerDecidedTarget for every pair it has seen.
import { describe, expect, it } from 'vitest';
import { recordingGate } from 'credit402-tooling/testing/recording-gate';
import { methodAndTarget } from 'credit402-tooling/testing/request-line';
import { createRouterAgreement, routerDecidedTarget } from './route-agreement.ts';

const ROUTES = { 'GET /api/weather': { amount: 500 }, 'GET /api/users/:id': { amount: 5 }, 'POST /api/translate': { amount: 2500 } };

describe('createRouterAgreement', () => {
  it.each([
    ['GET /api/weather', '/api/weather'],
    ['HEAD /api/weather?x=1', '/api/weather'],
    ['GET /api/users/7', '/api/users/:id'],
    ['GET /api/things/7', '/api/things/:id'],
    ['POST /api/weather', '/api/weather'],
    ['GET /free', '/free'],
    ['GET /nothing', null],
    ['GET /api\\weather', '/api/weather'],
    ['GET /api/%77eather', '/api/weather'],
  ])('%s on the router path %s: as routerDecidedTarget, the first time and again', async (request, routerPath) => {
    const [method, target] = methodAndTarget(request);
    const { gate } = await recordingGate('e'.repeat(64), 1, ROUTES);
    const agree = createRouterAgreement(gate);
    const expected = routerDecidedTarget(gate, method, target, routerPath);
    expect(agree(method, target, routerPath)).toEqual(expected);
    expect(agree(method, target, routerPath)).toEqual(expected);
  });
});
