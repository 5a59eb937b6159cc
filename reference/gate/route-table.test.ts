// Unit tests for route matching: exact keys, named segments, the final wildcard, precedence and HEAD (CR-4.8, CR-4.11–CR-4.13).
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { methodAndTarget } from 'credit402-tooling/testing/request-line';
import { createRouteTable } from './route-table.ts';
import { resolveRoutes } from './routes.ts';

const tableOf = (keys: string[]) => createRouteTable(resolveRoutes(Object.fromEntries(keys.map((key) => [key, { amount: 1 }]))).values());

/** The gated route keys, each with the paths it matches for its method (CR-4.11–CR-4.13). */
const MATCHES: Record<string, string[]> = {
  'GET /api/users/me': ['/api/users/me'],
  'GET /api/users/:id': ['/api/users/42', '/api/users/a%2Fb'],
  'GET /api/users/:id/posts/*': ['/api/users/42/posts/', '/api/users/42/posts/7/comments'],
  'GET /api/files/:name': ['/api/files/a'],
  'GET /api/files/*': ['/api/files/', '/api/files/a/b.txt'],
  'POST /api/files/*': ['/api/files/a'],
  'GET /api/weather': ['/api/weather'],
};

/** Requests near those keys that none of them matches, by why. */
const FREE: Record<string, string[]> = {
  'an empty named segment': ['GET /api/users/'],
  'a missing segment': ['GET /api/users'],
  'a trailing slash is one more (empty) segment': ['GET /api/users/42/'],
  'the wildcard needs its "/"': ['GET /api/users/42/posts', 'GET /api/files'],
  'literals keep their case': ['GET /API/users/42'],
  'another method': ['PUT /api/files/a'],
  'an exact key matches one path': ['GET /api/weather/x'],
};

describe('route table (CR-4.11, CR-4.12, CR-4.13)', () => {
  const table = tableOf(Object.keys(MATCHES));
  it.each(Object.entries(MATCHES).flatMap(([key, paths]) => paths.map((path) => [key, path])))('%s matches %s', (key, path) => {
    expect(table.match(methodAndTarget(key)[0], path)?.key).toBe(key);
  });

  it.each(Object.entries(FREE).flatMap(([why, requests]) => requests.map((request) => [request, why])))('%s is free (%s)', (request) => {
    expect(table.match(...methodAndTarget(request))).toBeUndefined();
  });

  it('CR-4.8 HEAD follows GET, and the most specific of the HEAD and GET keys wins, HEAD first at the same shape', () => {
    expect(table.match('HEAD', '/api/users/42')?.key).toBe('GET /api/users/:id');
    const mixed = tableOf(['HEAD /a/*', 'GET /a/b', 'GET /a/:x', 'HEAD /a/:y']);
    expect(mixed.match('HEAD', '/a/b')?.key).toBe('GET /a/b');
    expect(mixed.match('HEAD', '/a/c')?.key).toBe('HEAD /a/:y');
    expect(mixed.match('HEAD', '/a/c/d')?.key).toBe('HEAD /a/*');
    expect(mixed.match('GET', '/a/c/d')).toBeUndefined();
  });

  it('left to right: an earlier literal outranks a later one', () => {
    const table2 = tableOf(['GET /a/:x/c', 'GET /a/b/:y']);
    expect(table2.match('GET', '/a/b/c')?.key).toBe('GET /a/b/:y');
  });

  it('refuses two keys of one method with the same shape (ERR_ROUTE_CONFLICT), not across methods', () => {
    expect(() => tableOf(['GET /u/:id', 'GET /u/:name'])).toThrow(Credit402ConfigError);
    expect(() => tableOf(['GET /u/:id', 'GET /u/:name'])).toThrow(/ERR_ROUTE_CONFLICT|same specificity/);
    expect(() => tableOf(['GET /u/*', 'GET /u/*', 'HEAD /u/*'])).not.toThrow();
    expect(() => tableOf(['GET /u/:id', 'POST /u/:name', 'HEAD /u/:x'])).not.toThrow();
  });

  it('lists the methods gated on a path for a CORS preflight', () => {
    expect(table.methodsOn('/api/files/a').sort()).toEqual(['GET', 'HEAD', 'POST']);
    expect(table.methodsOn('/nothing')).toEqual([]);
  });
});
