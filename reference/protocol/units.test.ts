// Unit tests for units-to-cents conversion.
import { describe, expect, it } from 'vitest';
import { unitsToCents } from './units.ts';

describe('unitsToCents', () => {
  it('rounds up to the next cent', () => {
    expect(unitsToCents(0)).toBe(0);
    expect(unitsToCents(1)).toBe(1);
    expect(unitsToCents(100)).toBe(1);
    expect(unitsToCents(101)).toBe(2);
    expect(unitsToCents(50_000)).toBe(500);
    expect(unitsToCents(50_001)).toBe(501);
  });

  it('is exact for the largest safe integers', () => {
    expect(unitsToCents(Number.MAX_SAFE_INTEGER)).toBe(90_071_992_547_410);
    expect(unitsToCents(9_007_199_254_740_901)).toBe(90_071_992_547_410);
    expect(unitsToCents(9_007_199_254_740_900)).toBe(90_071_992_547_409);
  });

  it('rejects negative, fractional and unsafe values', () => {
    for (const bad of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN]) {
      expect(() => unitsToCents(bad)).toThrow(RangeError);
    }
  });
});
