// keyPathOf: Fastify's and Express's route paths named in the route-key syntax when they have its shape.
import { describe } from 'vitest';
import { itReadsKeyPaths } from 'credit402-tooling/testing/key-path-readings';
import { keyPathOf } from './route-key-path.ts';

describe('keyPathOf', () => {
  itReadsKeyPaths(keyPathOf, 'drops the regular expression of a named segment and names a final wildcard *', [
    ['/api/users/:id(^.+$)', '/api/users/:id'],
    ['/api/files/{*rest}', '/api/files/*'],
    ['/api/files/*rest', '/api/files/*'],
    '/api/files/*',
    ['/t/:tenant(\\d+)/files/{*path}', '/t/:tenant/files/*'],
  ]);

  itReadsKeyPaths(keyPathOf, 'keeps exact paths, key-shaped patterns and other syntax as they are', [
    '/api/weather',
    '/api/users/:id',
    '/api/users/:id?',
    '/a/:id(x/y)',
    '/a/{*rest}/b',
    '/a/:id(\\d+)/:id(\\w+)',
  ]);
});
