// The adapter kit of `credit402/gate`: what an adapter for another framework reaches from the package, and the wrapper it adds.
import { describe, expect, it } from 'vitest';
import * as gateEntry from './index.ts';
import { Credit402ConfigError, validateRouteConfig, validateRoutes } from './index.ts';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return error instanceof Credit402ConfigError ? error.code : 'not a Credit402ConfigError';
  }
  return undefined;
};

describe('the adapter kit', () => {
  it('is exported by the public entry, and the engine internals are not', () => {
    const kit = [
      'AMBIGUOUS_TARGET', 'ambiguousTarget', 'readRequestTarget', 'routerTarget', 'createRouterAgreement', 'routerDecidedTarget',
      'validateRoutes', 'createRouteTable', 'parseRoutePattern', 'matchesRoutePattern', 'routePatternParams', 'compareRouteSpecificity',
      'validateCors', 'withCors', 'corsPreflight', 'DEFAULT_NEW_PAYMENT_RATE_LIMIT', 'createNearMisses', 'nearMissRefused', 'NEAR_MISS', 'ROUTER_LOOSENESSES',
    ];
    for (const name of kit) expect(typeof Reflect.get(gateEntry, name), name).not.toBe('undefined');
    for (const name of ['respond', 'resolveRoutes', 'spendBalance', 'payByCard', 'createRateLimiter', 'OUTCOME_UNKNOWN', 'parsePattern']) {
      expect(name in gateEntry, name).toBe(false);
    }
  });

  it('reads targets as the gate does: a path and query, or a 400 for an ambiguous one', () => {
    expect(gateEntry.readRequestTarget('/api/%77eather?x=1')).toEqual({ ok: true, path: '/api/weather', query: '?x=1' });
    expect(gateEntry.routerTarget('http://host/api/%77eather?x=1')).toBe('/api/weather?x=1');
    const reading = gateEntry.readRequestTarget('/api/./weather');
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(gateEntry.ambiguousTarget(reading.reason)).toMatchObject({ action: 'respond', status: 400, body: { error: gateEntry.AMBIGUOUS_TARGET } });
  });
});

describe('validateRoutes', () => {
  it('returns the routes with their defaults applied, keyed as given', () => {
    const routes = validateRoutes({ 'GET /api/weather': { amount: 500 }, 'GET /api/users/:id': { amount: 10, currency: 'EUR' } });
    expect([...routes.keys()]).toEqual(['GET /api/weather', 'GET /api/users/:id']);
    expect(routes.get('GET /api/weather')).toMatchObject({ method: 'GET', path: '/api/weather', amount: 500, currency: 'usd' });
    expect(routes.get('GET /api/users/:id')?.segments).toHaveLength(3);
    expect(validateRoutes(undefined).size).toBe(0);
  });

  it('refuses what createGate refuses, conflicting patterns included', () => {
    expect(codeOf(() => validateRoutes({ 'get /a': { amount: 1 } }))).toBe('ERR_ROUTE_KEY');
    expect(codeOf(() => validateRoutes({ 'GET /a': { amount: -1 } }))).toBe('ERR_ROUTE_AMOUNT');
    expect(codeOf(() => validateRoutes({ 'GET /a/:': { amount: 1 } }))).toBe('ERR_ROUTE_PATTERN');
    expect(codeOf(() => validateRoutes({ 'GET /u/:id': { amount: 1 }, 'GET /u/:name': { amount: 1 } }))).toBe('ERR_ROUTE_CONFLICT');
    expect(codeOf(() => validateRoutes({ 'GET /u/:id': { amount: 1 }, 'POST /u/:name': { amount: 1 } }))).toBeUndefined();
  });

  it('validateRouteConfig checks one route configuration before its route is known, naming the subject it is given', () => {
    expect(() => validateRouteConfig({ amount: 500 }, 'credit402.route()')).not.toThrow();
    expect(() => validateRouteConfig({ amount: -1 }, 'credit402.route()')).toThrow(/^ERR_ROUTE_AMOUNT: credit402\.route\(\): amount must be/);
    expect(() => validateRouteConfig({ amount: 1, currency: 'xyz' }, 'myRoute()')).toThrow(expect.objectContaining({ code: 'ERR_ROUTE_CURRENCY', message: expect.stringContaining('myRoute(): currency') }));
  });
});
