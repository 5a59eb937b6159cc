// Reads npm's package-lock.json (v3): which packages one package brings into a project, with Node's module resolution.

/** The part of a lockfile entry this reads. */
interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** A package-lock.json of lockfileVersion 2 or 3. */
export interface Lockfile {
  packages: Record<string, LockEntry>;
}

/** The lockfile path `name` resolves to from the package at `from` (Node's walk up the node_modules folders). */
function resolve(lock: Lockfile, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

/** Names the entry needs installed: dependencies, optional dependencies that are present, and required peers. */
function needs(entry: LockEntry): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => !entry.peerDependenciesMeta?.[peer]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

/** Every package (by lockfile path) that `name`, installed at the top of the project, brings with it, itself excluded. */
export function dependencyClosure(lock: Lockfile, name: string): Set<string> {
  const start = resolve(lock, '', name);
  const seen = new Set<string>();
  const queue = start === undefined ? [] : [start];
  while (queue.length > 0) {
    const path = queue.pop() ?? '';
    for (const dependency of needs(lock.packages[path] ?? {})) {
      const found = resolve(lock, path, dependency);
      if (found !== undefined && !seen.has(found) && found !== start) {
        seen.add(found);
        queue.push(found);
      }
    }
  }
  return seen;
}
