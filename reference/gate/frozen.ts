// Deep freezing of the gate's decisions: built once, read-only values from then on.

/** Freezes `value` and every object or array it holds, recursively (functions are left as they are); returns it. Acyclic values only. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
  return value;
}
