// Tests of the --store option of the crash test and the fault load.
import { describe, expect, it } from 'vitest';
import { parseStoreList } from './store-list.ts';

const STORES = ['sqlite', 'redis', 'postgres'] as const;

describe('parseStoreList', () => {
  it('reads a comma list, all and aliases, each store once in the order named', () => {
    expect(parseStoreList('redis, sqlite,redis', STORES)).toEqual(['redis', 'sqlite']);
    expect(parseStoreList('all', STORES)).toEqual(['sqlite', 'redis', 'postgres']);
    expect(parseStoreList('both', STORES, { both: ['sqlite', 'redis'] })).toEqual(['sqlite', 'redis']);
  });

  it('refuses an unknown store or an empty list', () => {
    expect(parseStoreList('sqlite,mysql', STORES)).toBeUndefined();
    expect(parseStoreList('', STORES)).toBeUndefined();
  });
});
