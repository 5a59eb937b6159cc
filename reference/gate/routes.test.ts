// Unit tests for route validation and defaults.
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { resolveRoutes } from './routes.ts';

/** The code of the Credit402ConfigError that resolving `routes` throws; undefined when they resolve. */
const routesCode = (routes: unknown): string | undefined => codeOf(() => resolveRoutes(routes), Credit402ConfigError);

describe('resolveRoutes: route validation at construction (CR-2.3, CR-2.10, CR-2.11, CR-2.12, CR-2.13, CR-2.14, CR-2.15, CR-2.16, CR-2.20)', () => {
  it('applies the defaults usd, 50000 and the largest charge', () => {
    const route = resolveRoutes({ 'GET /a': { amount: 500 } }).get('GET /a');
    expect(route).toEqual({ key: 'GET /a', method: 'GET', path: '/a', amount: 500, currency: 'usd', minTopUp: 50_000, maxTopUp: 9_999_999_900 });
  });

  it('normalises the currency to lowercase and keeps the description', () => {
    const route = resolveRoutes({ 'POST /t': { amount: 2500, currency: 'EUR', minTopUp: 100_000, description: 'T' } }).get('POST /t');
    expect(route).toMatchObject({ currency: 'eur', minTopUp: 100_000, description: 'T' });
  });

  it.each([
    ['ERR_ROUTES', []],
    ['ERR_ROUTES', null],
    ['ERR_ROUTE_KEY', { '/a': { amount: 1 } }],
    ['ERR_ROUTE_KEY', { 'get /a': { amount: 1 } }],
    ['ERR_ROUTE_KEY', { 'GET  /a': { amount: 1 } }],
    ['ERR_ROUTE_KEY', { 'GET /a?x=1': { amount: 1 } }],
    ['ERR_ROUTE_KEY', { 'GET a': { amount: 1 } }],
    ['ERR_ROUTE_AMOUNT', { 'GET /a': { amount: -1 } }],
    ['ERR_ROUTE_AMOUNT', { 'GET /a': { amount: 1.5 } }],
    ['ERR_ROUTE_AMOUNT', { 'GET /a': { amount: '5' } }],
    ['ERR_ROUTE_AMOUNT', { 'GET /a': { amount: 2 ** 53 } }],
    ['ERR_ROUTE_CURRENCY', { 'GET /a': { amount: 1, currency: 'dollars' } }],
    ['ERR_ROUTE_CURRENCY', { 'GET /a': { amount: 1, currency: 'jpy' } }],
    ['ERR_ROUTE_CURRENCY', { 'GET /a': { amount: 1, currency: 'xyz' } }],
    ['ERR_ROUTE_MIN_TOP_UP', { 'GET /a': { amount: 60_000 } }],
    ['ERR_ROUTE_MIN_TOP_UP', { 'GET /a': { amount: 1, minTopUp: 4_900 } }],
    ['ERR_ROUTE_MIN_TOP_UP', { 'GET /a': { amount: 1, currency: 'gbp', minTopUp: 2_900 } }],
    ['ERR_ROUTE_MIN_TOP_UP', { 'GET /a': { amount: 0, minTopUp: 0 } }],
    ['ERR_ROUTE_MAX_TOP_UP', { 'GET /a': { amount: 1, maxTopUp: 10_000 } }],
    ['ERR_ROUTE_MAX_TOP_UP', { 'GET /a': { amount: 1, maxTopUp: 10_000_000_000 } }],
    ['ERR_ROUTE_DESCRIPTION', { 'GET /a': { amount: 1, description: '' } }],
    ['ERR_ROUTE_PATTERN', { 'GET /a/:': { amount: 1 } }],
    ['ERR_ROUTE_PATTERN', { 'GET /a/:1d': { amount: 1 } }],
    ['ERR_ROUTE_PATTERN', { 'GET /a/:id/:id': { amount: 1 } }],
    ['ERR_ROUTE_PATTERN', { 'GET /a/x:id': { amount: 1 } }],
    ['ERR_ROUTE_PATTERN', { 'GET /a/*/b': { amount: 1 } }],
    ['ERR_ROUTE_PATTERN', { 'GET /a/b*': { amount: 1 } }],
  ])('rejects with %s: %j', (code, routes) => {
    expect(routesCode(routes)).toBe(code);
  });

  it('CR-2.10 accepts an empty table: the library prices routes where the router declares them (CR-4.15)', () => {
    expect(resolveRoutes({}).size).toBe(0);
    expect(resolveRoutes(undefined).size).toBe(0);
  });

  it('CR-4.11 parses named segments and a final wildcard; an exact path has no segments', () => {
    const routes = resolveRoutes({ 'GET /u/:id/posts/*': { amount: 1 }, 'GET /u/me': { amount: 1 }, 'GET /*': { amount: 1 } });
    expect(routes.get('GET /u/:id/posts/*')?.segments).toEqual([
      { kind: 'literal', text: 'u' }, { kind: 'named', name: 'id' }, { kind: 'literal', text: 'posts' }, { kind: 'wildcard' },
    ]);
    expect(routes.get('GET /u/me')?.segments).toBeUndefined();
    expect(routes.get('GET /*')?.segments).toEqual([{ kind: 'wildcard' }]);
  });

  it('CR-2.19 treats null as absent and ignores unknown fields', () => {
    const routes = { 'GET /a': { amount: 1, currency: null, minTopUp: null, maxTopUp: null, description: null, colour: 'blue' } };
    expect(resolveRoutes(routes).get('GET /a')).toEqual({ key: 'GET /a', method: 'GET', path: '/a', amount: 1, currency: 'usd', minTopUp: 50_000, maxTopUp: 9_999_999_900 });
  });

  it('CR-2.12 CR-2.14 CR-2.15 CR-13.33 judges numbers by their binary64 value: 500.0 is 500, 1.5 is not an integer', () => {
    const routes = JSON.parse('{"GET /a":{"amount":500.0,"minTopUp":5e4,"maxTopUp":9999999900.0},"GET /b":{"amount":500.00000000000001}}') as Record<string, unknown>;
    const resolved = resolveRoutes(routes);
    expect(resolved.get('GET /a')).toEqual({ key: 'GET /a', method: 'GET', path: '/a', amount: 500, currency: 'usd', minTopUp: 50_000, maxTopUp: 9_999_999_900 });
    expect(resolved.get('GET /b')?.amount).toBe(500);
    expect(Object.is(resolved.get('GET /a')?.amount, 500)).toBe(true);
    expect(routesCode(JSON.parse('{"GET /a":{"amount":500.5}}'))).toBe('ERR_ROUTE_AMOUNT');
    expect(routesCode(JSON.parse('{"GET /a":{"amount":1,"minTopUp":50000.5}}'))).toBe('ERR_ROUTE_MIN_TOP_UP');
    expect(routesCode(JSON.parse('{"GET /a":{"amount":1,"maxTopUp":1e400}}'))).toBe('ERR_ROUTE_MAX_TOP_UP');
  });

  it('accepts the smallest charge exactly (gbp 30 pence: 2901 units round up to 30)', () => {
    expect(routesCode({ 'GET /a': { amount: 1, currency: 'gbp', minTopUp: 2_901 } })).toBeUndefined();
  });
});
