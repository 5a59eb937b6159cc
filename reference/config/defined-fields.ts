// Option objects from values that may be missing: a field whose value is undefined is left out, as optional fields want.

/** The fields of `fields` whose value is not undefined; every field is optional in the type (exactOptionalPropertyTypes). */
export function definedFields<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
