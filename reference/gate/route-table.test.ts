// Unit tests for route matching: exact keys, named segments, the final wildcard, precedence and HEAD (CR-4.8, CR-4.11–CR-4.13).
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { createRouteTable } from './route-table.ts';
import { resolveRoutes } from './routes.ts';

const tableOf = (keys: string[]) => createRouteTable(resolveRoutes(Object.fromEntries(keys.map((key) => [key, { amount: 1 }]))).values());

const KEYS = ['GET /api/users/me', 'GET /api/users/:id', 'GET /api/users/:id/posts/*', 'GET /api/files/:name', 'GET /api/files/*', 'POST /api/files/*', 'GET /api/weather'];

describe('route table (CR-4.11, CR-4.12, CR-4.13)', () => {
  const table = tableOf(KEYS);
  it.each([
    ['GET', '/api/users/me', 'GET /api/users/me'],
    ['GET', '/api/users/42', 'GET /api/users/:id'],
    ['GET', '/api/users/a%2Fb', 'GET /api/users/:id'],
    ['GET', '/api/users/42/posts/', 'GET /api/users/:id/posts/*'],
    ['GET', '/api/users/42/posts/7/comments', 'GET /api/users/:id/posts/*'],
    ['GET', '/api/files/a', 'GET /api/files/:name'],
    ['GET', '/api/files/', 'GET /api/files/*'],
    ['GET', '/api/files/a/b.txt', 'GET /api/files/*'],
    ['POST', '/api/files/a', 'POST /api/files/*'],
    ['GET', '/api/weather', 'GET /api/weather'],
  ])('%s %s is %s', (method, path, key) => {
    expect(table.match(method, path)?.key).toBe(key);
  });

  it.each([
    ['GET', '/api/users/', 'an empty named segment'],
    ['GET', '/api/users', 'a missing segment'],
    ['GET', '/api/users/42/', 'a trailing slash is one more (empty) segment'],
    ['GET', '/api/users/42/posts', 'the wildcard needs its "/"'],
    ['GET', '/api/files', 'the wildcard needs its "/"'],
    ['GET', '/API/users/42', 'literals keep their case'],
    ['PUT', '/api/files/a', 'another method'],
    ['GET', '/api/weather/x', 'an exact key matches one path'],
  ])('%s %s is free (%s)', (method, path) => {
    expect(table.match(method, path)).toBeUndefined();
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
