// Conversion between protocol units and the processor's minor currency unit (cents).
import { UNITS_PER_MINOR } from './constants.ts';

/** Converts integer units to minor currency units, rounding up; exact for every safe integer. */
export function unitsToCents(units: number): number {
  if (!Number.isSafeInteger(units) || units < 0) {
    throw new RangeError(`units must be a non-negative safe integer, got ${units}`);
  }
  const remainder = units % UNITS_PER_MINOR;
  return (units - remainder) / UNITS_PER_MINOR + (remainder > 0 ? 1 : 0);
}
