// Tests of the lockfile reader: nested and hoisted dependencies, required and optional peers, cycles.
import { describe, expect, it } from 'vitest';
import { dependencyClosure, type Lockfile } from './lockfile.ts';

const lock: Lockfile = {
  packages: {
    '': {},
    'node_modules/lib': { dependencies: { a: '1' }, peerDependencies: { fw: '1', opt: '1' }, peerDependenciesMeta: { opt: { optional: true } } },
    'node_modules/a': { dependencies: { b: '2', lib: '1' } },
    'node_modules/b': {},
    'node_modules/a/node_modules/b': { dependencies: { c: '1' } },
    'node_modules/c': {},
    'node_modules/fw': {},
    'node_modules/opt': {},
  },
};

describe('dependencyClosure', () => {
  it('follows Node resolution, required peers and cycles, and leaves optional peers out', () => {
    expect([...dependencyClosure(lock, 'lib')].sort()).toEqual(['node_modules/a', 'node_modules/a/node_modules/b', 'node_modules/c', 'node_modules/fw']);
  });

  it('is empty for a package that is not installed', () => {
    expect(dependencyClosure(lock, 'nothing').size).toBe(0);
  });
});
