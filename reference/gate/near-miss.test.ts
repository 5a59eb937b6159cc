// Unit tests for the near-misses of gated routes (CR-15.5): what a looser router reads as a gated route, per looseness and all together.
import { describe, expect, it } from 'vitest';
import { methodAndTarget } from 'credit402-tooling/testing/request-line';
import { createNearMisses, NEAR_MISS, nearMissRefused, ROUTER_LOOSENESSES, type RouterLooseness } from './near-miss.ts';
import { createRouteTable } from './route-table.ts';
import { resolveRoutes } from './routes.ts';

/** The gated route keys, each with the requests a looser router reads as that route (the table leaves them free), and what the looser router allows. */
const NEAR_MISSES: Record<string, Array<[request: string, looseness: string]>> = {
  'GET /api/ok': [
    ['GET /api/ok/', 'a trailing slash'],
    ['GET /API/OK', 'another case'],
    ['GET /api/ok;jsessionid=1', 'a ; parameter'],
    ['GET /api;x=1/ok', 'a ; parameter inside the path'],
    ['GET //api/ok', 'a leading double slash'],
    ['GET /api//ok', 'a double slash inside'],
    ['GET /api%2Fok', 'an encoded slash'],
    ['GET /API//ok/;x', 'several at once'],
    ['HEAD /API/ok', 'HEAD following GET'],
  ],
  'GET /api/users/:id': [
    ['GET /api/users/42/', 'a pattern with a trailing slash'],
    ['GET /API/Users/42', 'a pattern in another case'],
    ['GET /api/users//42', 'a pattern with a double slash'],
    ['GET /api/users/', 'an empty named segment'],
    ['GET /api/users;v=2/42', 'a ; parameter on a pattern\'s literal'],
  ],
  'GET /files/*': [
    ['GET /files', 'a wildcard\'s prefix without its slash'],
    ['GET /FILES/a/b', 'a wildcard in another case'],
  ],
  'POST /api/translate': [['POST /api/Translate', 'another method\'s route']],
  'GET /Mixed/Case': [['GET /mixed/case', 'a route key with capitals']],
  'GET /slash/': [['GET /slash', 'a route key with a trailing slash, requested without']],
};

const routes = [...resolveRoutes(Object.fromEntries(Object.keys(NEAR_MISSES).map((key) => [key, { amount: 1 }]))).values()];
const table = createRouteTable(routes);
const nearOf = (looseness: readonly RouterLooseness[]) => {
  const near = createNearMisses(routes, looseness);
  return (method: string, path: string): string | undefined => near?.routeNear(method, path)?.key;
};

/** Requests that are no near-miss of any key, with why. */
const NO_NEAR_MISSES = {
  'POST /api/ok/': 'another method',
  'GET /api/okay': 'another path',
  'GET /api/ok/x': 'one more segment',
  'GET /api/users': 'a pattern\'s missing segment',
  'GET /api/users/42/x': 'a pattern\'s extra segment',
  'GET /free': 'a free path',
  'GET *': 'the asterisk form',
};

describe('near-misses of gated routes (CR-15.5)', () => {
  const all = nearOf(ROUTER_LOOSENESSES);

  it.each(Object.entries(NEAR_MISSES).flatMap(([key, requests]) => requests.map(([request, looseness]) => [request, key, looseness])))('%s is a near-miss of %s (%s)', (request, key) => {
    expect(table.match(...methodAndTarget(request))).toBeUndefined();
    expect(all(...methodAndTarget(request))).toBe(key);
  });

  it.each(Object.entries(NO_NEAR_MISSES))('%s is no near-miss (%s)', (request) => {
    expect(all(...methodAndTarget(request))).toBeUndefined();
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
