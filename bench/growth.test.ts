// The soak's growth fit: slope and r² of a line, the second half only, and what counts as a steady climb.
import { describe, expect, it } from 'vitest';
import { climbs, linearFit, secondHalfTrend } from './growth.ts';

describe('growth over a soak', () => {
  it('fits a straight line exactly and a flat series with slope 0', () => {
    expect(linearFit([[0, 1], [1, 3], [2, 5], [3, 7]])).toEqual({ slope: 2, r2: 1 });
    expect(linearFit([[0, 4], [1, 4], [2, 4]])).toEqual({ slope: 0, r2: 0 });
    expect(linearFit([[0, 1], [1, 2]])).toEqual({ slope: 0, r2: 0 });
  });

  it('looks at the second half only: growth that stopped is not a climb', () => {
    const warming: Array<[number, number]> = Array.from({ length: 20 }, (_, t) => [t, t < 10 ? 100 + 5 * t : 150 + (t % 2)]);
    const trend = secondHalfTrend(warming);
    expect(trend.samples).toBe(10);
    expect(climbs(trend, 1)).toBe(false);
    const leaking: Array<[number, number]> = Array.from({ length: 20 }, (_, t) => [t, 100 + 2 * t + (t % 2) * 0.5]);
    expect(climbs(secondHalfTrend(leaking), 1)).toBe(true);
  });
});
