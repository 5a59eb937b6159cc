// Growth over a soak: least-squares slope of a series over its second half, and whether that looks unbounded.

/** A series' trend over the second half of a run. */
export interface Trend {
  /** Units of the series per second. */
  slopePerSecond: number;
  /** Coefficient of determination of the linear fit (1: a straight line; near 0: noise around a level). */
  r2: number;
  /** Samples the fit used. */
  samples: number;
}

/** The least-squares line through `points` ([x, y]); slope 0 and r² 0 with fewer than 3 points or no spread. */
export function linearFit(points: ReadonlyArray<readonly [number, number]>): { slope: number; r2: number } {
  const n = points.length;
  if (n < 3) return { slope: 0, r2: 0 };
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (y - meanY);
    syy += (y - meanY) ** 2;
  }
  if (sxx === 0) return { slope: 0, r2: 0 };
  const slope = sxy / sxx;
  return { slope, r2: syy === 0 ? 0 : (sxy * sxy) / (sxx * syy) };
}

/** The trend of `points` ([seconds, value]) over the second half of the time they span. */
export function secondHalfTrend(points: ReadonlyArray<readonly [number, number]>): Trend {
  const end = points.reduce((latest, [t]) => Math.max(latest, t), 0);
  const half = points.filter(([t]) => t >= end / 2);
  const { slope, r2 } = linearFit(half);
  return { slopePerSecond: slope, r2, samples: half.length };
}

/** Whether a trend is a steady climb: at least `minSlopePerSecond` and a fit that explains most of the variation. */
export function climbs(trend: Trend, minSlopePerSecond: number): boolean {
  return trend.samples >= 3 && trend.slopePerSecond >= minSlopePerSecond && trend.r2 >= 0.5;
}
