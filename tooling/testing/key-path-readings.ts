// Test helper: the tests of a reader of framework route paths (Fastify, Express, Hono, Next.js) in the route-key syntax.
import { expect, it } from 'vitest';

/**
 * One test per reading of `read`, titled `title`: a `[path, keyPath]` is read as `keyPath`, and a lone path is kept
 * as it is.
 */
export function itReadsKeyPaths(read: (path: string) => string, title: string, readings: Array<string | [path: string, keyPath: string]>): void {
  const pairs = readings.map((reading): [string, string] => (typeof reading === 'string' ? [reading, reading] : reading));
  it.each(pairs)(`${title}: %s is %s`, (path, keyPath) => {
    expect(read(path)).toBe(keyPath);
  });
}
