// Looks up what a feature names in a table of the kit's known cases, failing with the names it knows.

/** The entry of `table` named `name`; throws `unknown <what> "<name>"; known: …` when there is none. */
export function named<T>(table: Readonly<Record<string, T>>, name: string, what: string): T {
  const found = Object.hasOwn(table, name) ? table[name] : undefined;
  if (found === undefined) throw new Error(`unknown ${what} "${name}"; known: ${Object.keys(table).join(', ')}`);
  return found;
}
