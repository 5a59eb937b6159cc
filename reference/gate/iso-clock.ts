// A gate's clock for the dates of its records: the current time as ISO 8601 text, made once per millisecond.

/**
 * A clock whose reading is `new Date().toISOString()`, made once per millisecond: many paid requests of one gate share
 * one date string under load. Each gate has its own (no state shared between gates or modules).
 */
export function createIsoClock(): () => string {
  let lastMs = 0;
  let lastIso = '';
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastIso = new Date(now).toISOString();
    }
    return lastIso;
  };
}
