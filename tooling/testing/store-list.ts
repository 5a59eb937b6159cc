// The `--store` option of the money-checking runs (crash test, fault load): a comma list of stores and aliases, each store once.

/**
 * The stores `value` names (`sqlite,redis`, `all`, an alias of `aliases`), each once in the order named; undefined
 * when it names none or names one that is not in `known`.
 */
export function parseStoreList<S extends string>(value: string, known: readonly S[], aliases: Readonly<Record<string, readonly string[]>> = {}): S[] | undefined {
  const expand = (name: string): readonly string[] => aliases[name] ?? (name === 'all' ? known : [name]);
  const named = [...new Set(value.split(',').flatMap((item) => expand(item.trim())))];
  const stores = named.filter((name): name is S => (known as readonly string[]).includes(name));
  return stores.length > 0 && stores.length === named.length ? stores : undefined;
}

/** A `--seed` value, or a fresh one. */
export function seedOf(value: string | undefined): number {
  return value === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(value);
}
