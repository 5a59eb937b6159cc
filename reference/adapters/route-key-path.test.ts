// keyPathOf: Fastify's and Express's route paths named in the route-key syntax when they have its shape.
import { describe, expect, it } from 'vitest';
import { keyPathOf } from './route-key-path.ts';

describe('keyPathOf', () => {
  it('drops the regular expression of a named segment and names a final wildcard *', () => {
    expect(keyPathOf('/api/users/:id(^.+$)')).toBe('/api/users/:id');
    expect(keyPathOf('/api/files/{*rest}')).toBe('/api/files/*');
    expect(keyPathOf('/api/files/*rest')).toBe('/api/files/*');
    expect(keyPathOf('/api/files/*')).toBe('/api/files/*');
    expect(keyPathOf('/t/:tenant(\\d+)/files/{*path}')).toBe('/t/:tenant/files/*');
  });

  it('keeps exact paths, key-shaped patterns and other syntax as they are', () => {
    expect(keyPathOf('/api/weather')).toBe('/api/weather');
    expect(keyPathOf('/api/users/:id')).toBe('/api/users/:id');
    expect(keyPathOf('/api/users/:id?')).toBe('/api/users/:id?');
    expect(keyPathOf('/a/:id(x/y)')).toBe('/a/:id(x/y)');
    expect(keyPathOf('/a/{*rest}/b')).toBe('/a/{*rest}/b');
    expect(keyPathOf('/a/:id(\\d+)/:id(\\w+)')).toBe('/a/:id(\\d+)/:id(\\w+)');
  });
});
