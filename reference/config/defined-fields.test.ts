// definedFields leaves out the undefined fields and keeps every other value, falsy ones included.
import { describe, expect, it } from 'vitest';
import { definedFields } from './defined-fields.ts';

describe('definedFields', () => {
  it('leaves out undefined fields and keeps null, 0, false and empty strings', () => {
    expect(definedFields({ a: undefined, b: null, c: 0, d: false, e: '', f: 'x' })).toEqual({ b: null, c: 0, d: false, e: '', f: 'x' });
    expect(Object.keys(definedFields({ a: undefined }))).toEqual([]);
  });
});
