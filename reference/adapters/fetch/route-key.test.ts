// Route paths of Hono and Next.js as route keys: records and metrics name a route alike on every framework.
import { describe } from 'vitest';
import { itReadsKeyPaths } from 'credit402-tooling/testing/key-path-readings';
import { routeKeyPath } from './route-key.ts';

describe('routeKeyPath', () => {
  itReadsKeyPaths(routeKeyPath, 'reads Hono paths in the route-key syntax', [
    ['/api/users/:id{[0-9]+}', '/api/users/:id'],
    ['/api/files/:rest{.*}', '/api/files/*'],
    ['/api/files/:rest{.+}', '/api/files/*'],
    '/api/files/*',
    ['/api/:kind{[a-z]+}/:id', '/api/:kind/:id'],
  ]);

  itReadsKeyPaths(routeKeyPath, 'reads Next.js App Router folders in the route-key syntax', [
    ['/api/users/[id]', '/api/users/:id'],
    ['/api/files/[...path]', '/api/files/*'],
    ['/api/files/[[...path]]', '/api/files/*'],
  ]);

  itReadsKeyPaths(routeKeyPath, 'keeps exact paths, and paths of other syntax, as they are', ['/api/weather', '/api/:id?', '/api/[...path]/x']);
});
