// Route paths of Hono and Next.js as route keys: records and metrics name a route alike on every framework.
import { describe, expect, it } from 'vitest';
import { routeKeyPath } from './route-key.ts';

describe('routeKeyPath', () => {
  it('reads Hono paths in the route-key syntax', () => {
    expect(routeKeyPath('/api/users/:id{[0-9]+}')).toBe('/api/users/:id');
    expect(routeKeyPath('/api/files/:rest{.*}')).toBe('/api/files/*');
    expect(routeKeyPath('/api/files/:rest{.+}')).toBe('/api/files/*');
    expect(routeKeyPath('/api/files/*')).toBe('/api/files/*');
    expect(routeKeyPath('/api/:kind{[a-z]+}/:id')).toBe('/api/:kind/:id');
  });

  it("reads Next.js App Router folders in the route-key syntax", () => {
    expect(routeKeyPath('/api/users/[id]')).toBe('/api/users/:id');
    expect(routeKeyPath('/api/files/[...path]')).toBe('/api/files/*');
    expect(routeKeyPath('/api/files/[[...path]]')).toBe('/api/files/*');
  });

  it('keeps exact paths, and paths of other syntax, as they are', () => {
    expect(routeKeyPath('/api/weather')).toBe('/api/weather');
    expect(routeKeyPath('/api/:id?')).toBe('/api/:id?');
    expect(routeKeyPath('/api/[...path]/x')).toBe('/api/[...path]/x');
  });
});
