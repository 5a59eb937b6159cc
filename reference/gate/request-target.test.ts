// Unit tests of how the gate reads request targets (CR-4.2) and refuses ambiguous ones (CR-4.10) before any effect.
import { describe, expect, it } from 'vitest';
import { AMBIGUOUS_REQUESTS } from 'credit402-tooling/testing/ambiguous-requests';
import { recordingGate as recordingGateOf } from 'credit402-tooling/testing/recording-gate';
import { AMBIGUOUS_TARGET, readRequestTarget, routerTarget } from './request-target.ts';

const CLIENT = 'e'.repeat(64);
const SPEND = Buffer.from(JSON.stringify({ clientId: CLIENT })).toString('base64');
const PAY = Buffer.from(JSON.stringify({ paymentMethodId: 'pm_card_visa' })).toString('base64');

/** A gate whose store and processor record every call they get; the client has 10000 units. */
const recordingGate = () => recordingGateOf(CLIENT, 10_000, { 'GET /api/weather': { amount: 500 }, 'POST /api/translate': { amount: 2500 } });

describe('readRequestTarget (CR-4.2)', () => {
  it.each([
    ['/api/weather', '/api/weather', ''],
    ['/api/%77eather?city=Oslo', '/api/weather', '?city=Oslo'],
    ['/api%2Fweather', '/api%2Fweather', ''],
    ['//api/weather', '//api/weather', ''],
    ['/api/weather?x=\\', '/api/weather', '?x=\\'],
    ['http://x/api/weather?city=Oslo', '/api/weather', '?city=Oslo'],
    ['HTTPS://user@x:443/api/we%61ther', '/api/weather', ''],
    ['http://x', '/', ''],
    ['http://x?/api/weather', '/', '?/api/weather'],
    ['/api/weather.', '/api/weather.', ''],
    ['*', '*', ''],
    ['/', '/', ''],
    ['/api/weather?', '/api/weather', '?'],
    ['/api/weather?a=%2e./..&b=\\', '/api/weather', '?a=%2e./..&b=\\'],
    ['/api/a.b/c', '/api/a.b/c', ''],
    ['/api/weather?q=100%', '/api/weather', '?q=100%'],
    ['/api/weather?city=S%E3o', '/api/weather', '?city=S%E3o'],
    ['/api/Jos%C3%A9', '/api/Jos%C3%A9', ''],
    ['/api/%00%25', '/api/%00%25', ''],
  ])('reads %s as the path %s and the query %s', (target, path, query) => {
    expect(readRequestTarget(target)).toEqual({ ok: true, path, query });
  });

  it('hands the router the matched path with the query', () => {
    expect(routerTarget('http://x/api/%77eather?city=Oslo')).toBe('/api/weather?city=Oslo');
    expect(routerTarget('/api\\weather')).toBeUndefined();
  });
});

describe('ambiguous request targets (CR-4.10)', () => {
  it.each([
    ['/api\\weather', '"\\"'],
    ['/api\\weather#x', '"#"'],
    ['/api\\weather?city=Oslo#', '"#"'],
    ['http://x/api\\weather', '"\\"'],
    ['http://x\\@y/api/weather', '"\\"'],
    ['/api/weather#', '"#"'],
    ['/api/weather?city=Oslo#x', '"#"'],
    ['ftp://x/api/weather', 'scheme "ftp"'],
    ['ws://x/api/weather', 'scheme "ws"'],
    ['httpx://x/api/weather', 'scheme "httpx"'],
    ['http:///api/weather', 'without a host'],
    ['x:/api/weather', 'neither origin-form'],
    ['api/weather', 'neither origin-form'],
    ['/api/./weather', '".."'],
    ['/api/x/../weather', '".."'],
    ['/api/%2e%2E/api/weather', '".."'],
    ['http://x/api/.%2e/api/weather', '".."'],
    ['/api/weather\u00a0', 'non-ASCII'],
    ['/api/wea ther', 'space'],
    ['/api/weather%', '"%"'],
    ['/api/weather%zz', '"%"'],
    ['/api/%u0077eather', '"%"'],
    ['/api/users/%FF', 'not UTF-8'],
    ['/api/S%E3o?city=x', 'not UTF-8'],
    ['/files/a/%C3', 'not UTF-8'],
    ['/files/%ED%A0%80', 'not UTF-8'],
    ['http://x/api/%F', '"%"'],
  ])('%s is ambiguous (%s)', (target, reason) => {
    const reading = readRequestTarget(target);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.reason).toContain(reason);
  });

  it.each(AMBIGUOUS_REQUESTS)('CR-4.10 answers %s %s 400 ambiguous_request_target before any store or processor call, paid or not', async (method, url) => {
    const { gate, calls } = await recordingGate();
    for (const paymentHeader of [undefined, SPEND, PAY, 'not base64']) {
      const decision = await gate.handle({ method, url, paymentHeader });
      expect(decision).toEqual({
        action: 'respond',
        status: 400,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: { error: AMBIGUOUS_TARGET, message: expect.stringMatching(/^Ambiguous request target: it.+/) },
        code: AMBIGUOUS_TARGET,
      });
    }
    expect(calls).toEqual([]);
  });

  it('CR-4.10 spends as usual for the unambiguous forms of the same route', async () => {
    const { gate, calls } = await recordingGate();
    for (const url of ['/api/weather', '/api/%77eather', 'http://x/api/weather', 'HTTPS://x/api/weather?city=Oslo']) {
      expect(await gate.handle({ method: 'GET', url, paymentHeader: SPEND })).toMatchObject({ action: 'serve' });
    }
    expect(calls.filter((call) => call === 'store.deductBalance')).toHaveLength(4);
  });
});
