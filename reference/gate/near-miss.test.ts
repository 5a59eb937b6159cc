// Unit tests for the near-misses of gated routes (CR-15.5): what a looser router reads as a gated route, per looseness and all together.
import { describe, expect, it } from 'vitest';
import { createNearMisses, NEAR_MISS, nearMissRefused, ROUTER_LOOSENESSES, type RouterLooseness } from './near-miss.ts';
import { createRouteTable } from './route-table.ts';
import { resolveRoutes } from './routes.ts';

const KEYS = ['GET /api/ok', 'GET /api/users/:id', 'GET /files/*', 'POST /api/translate', 'GET /Mixed/Case', 'GET /slash/'];
const routes = [...resolveRoutes(Object.fromEntries(KEYS.map((key) => [key, { amount: 1 }]))).values()];
const table = createRouteTable(routes);
const nearOf = (looseness: readonly RouterLooseness[]) => {
  const near = createNearMisses(routes, looseness);
  return (method: string, path: string): string | undefined => near?.routeNear(method, path)?.key;
};

describe('near-misses of gated routes (CR-15.5)', () => {
  const all = nearOf(ROUTER_LOOSENESSES);

  it.each([
    ['GET', '/api/ok/', 'GET /api/ok', 'a trailing slash'],
    ['GET', '/API/OK', 'GET /api/ok', 'another case'],
    ['GET', '/api/ok;jsessionid=1', 'GET /api/ok', 'a ; parameter'],
    ['GET', '/api;x=1/ok', 'GET /api/ok', 'a ; parameter inside the path'],
    ['GET', '//api/ok', 'GET /api/ok', 'a leading double slash'],
    ['GET', '/api//ok', 'GET /api/ok', 'a double slash inside'],
    ['GET', '/api%2Fok', 'GET /api/ok', 'an encoded slash'],
    ['GET', '/API//ok/;x', 'GET /api/ok', 'several at once'],
    ['HEAD', '/API/ok', 'GET /api/ok', 'HEAD following GET'],
    ['GET', '/api/users/42/', 'GET /api/users/:id', 'a pattern with a trailing slash'],
    ['GET', '/API/Users/42', 'GET /api/users/:id', 'a pattern in another case'],
    ['GET', '/api/users//42', 'GET /api/users/:id', 'a pattern with a double slash'],
    ['GET', '/api/users/', 'GET /api/users/:id', 'an empty named segment'],
    ['GET', '/api/users;v=2/42', 'GET /api/users/:id', 'a ; parameter on a pattern\'s literal'],
    ['GET', '/files', 'GET /files/*', 'a wildcard\'s prefix without its slash'],
    ['GET', '/FILES/a/b', 'GET /files/*', 'a wildcard in another case'],
    ['POST', '/api/Translate', 'POST /api/translate', 'another method\'s route'],
    ['GET', '/mixed/case', 'GET /Mixed/Case', 'a route key with capitals'],
    ['GET', '/slash', 'GET /slash/', 'a route key with a trailing slash, requested without'],
  ])('%s %s is a near-miss of %s (%s)', (method, path, key) => {
    expect(table.match(method, path)).toBeUndefined();
    expect(all(method, path)).toBe(key);
  });

  it.each([
    ['POST', '/api/ok/', 'another method'],
    ['GET', '/api/okay', 'another path'],
    ['GET', '/api/ok/x', 'one more segment'],
    ['GET', '/api/users', 'a pattern\'s missing segment'],
    ['GET', '/api/users/42/x', 'a pattern\'s extra segment'],
    ['GET', '/free', 'a free path'],
    ['GET', '*', 'the asterisk form'],
  ])('%s %s is no near-miss (%s)', (method, path) => {
    expect(all(method, path)).toBeUndefined();
  });

  it('looks only for the loosenesses named', () => {
    const express = nearOf(['case-insensitive', 'optional-trailing-slash']);
    expect(express('GET', '/API/OK/')).toBe('GET /api/ok');
    for (const path of ['//api/ok', '/api//ok', '/api/ok;x=1', '/api%2Fok', '/api/users/']) expect(express('GET', path), path).toBeUndefined();
    const nginx = nearOf(['merged-slashes', 'percent-decoding']);
    expect(nginx('GET', '//api%2F%2Fok')).toBe('GET /api/ok');
    expect(nginx('GET', '/API/ok')).toBeUndefined();
    expect(nearOf(['merged-slashes'])('GET', '/api/ok//')).toBeUndefined();
    expect(nearOf(['merged-slashes', 'optional-trailing-slash'])('GET', '/api/ok//')).toBe('GET /api/ok');
    expect(nearOf(['empty-named-segments'])('GET', '/api/users/')).toBe('GET /api/users/:id');
  });

  it('has nothing to look for without a looseness or a route', () => {
    expect(createNearMisses(routes, [])).toBeUndefined();
    expect(createNearMisses([], ROUTER_LOOSENESSES)).toBeUndefined();
  });

  it('answers a near-miss 404 with its own error code and no protocol header', () => {
    const answer = nearMissRefused({ key: 'GET /api/ok' });
    expect(answer).toMatchObject({ action: 'respond', status: 404, code: NEAR_MISS, body: { error: NEAR_MISS } });
    expect(Object.keys(answer.headers)).toEqual(['content-type']);
    expect((answer.body as { message: string }).message).toContain('GET /api/ok');
  });
});
