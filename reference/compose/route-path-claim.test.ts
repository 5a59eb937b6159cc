// routeClaimingPath: exact keys and pattern keys claim the paths they would gate; methods filter; malformed patterns do not throw.
import { describe, expect, it } from 'vitest';
import { routeClaimingPath } from './route-path-claim.ts';

describe('routeClaimingPath', () => {
  const keys = ['GET /api/weather', 'GET /api/users/:id', 'POST /hooks/*', 'GET /bad/:'];

  it('finds an exact key and a pattern key that matches the path', () => {
    expect(routeClaimingPath(keys, '/api/weather')).toBe('GET /api/weather');
    expect(routeClaimingPath(keys, '/api/users/metrics')).toBe('GET /api/users/:id');
    expect(routeClaimingPath(keys, '/hooks/stripe')).toBe('POST /hooks/*');
  });

  it('keeps to the method when given, and to the shape of the pattern', () => {
    expect(routeClaimingPath(keys, '/hooks/stripe', 'GET')).toBeUndefined();
    expect(routeClaimingPath(keys, '/api/users/7', 'POST')).toBeUndefined();
    expect(routeClaimingPath(keys, '/api/users/7/more')).toBeUndefined();
    expect(routeClaimingPath(keys, '/api/users/')).toBeUndefined();
  });

  it('compares a malformed pattern as written instead of throwing', () => {
    expect(routeClaimingPath(keys, '/bad/x')).toBeUndefined();
    expect(routeClaimingPath(keys, '/bad/:')).toBe('GET /bad/:');
  });
});
