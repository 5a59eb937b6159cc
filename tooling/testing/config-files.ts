// Test helper: `--config` files written to a temporary folder of the test file, removed after its tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Makes a temporary folder named after `prefix` (removed in `afterAll`) and returns a writer of `--config` files in it:
 * `configFile(name, fields)` writes `<name>.json` with a memory store, port 0 and `fields`, and returns its path.
 */
export function useConfigFiles(prefix: string): (name: string, fields: Record<string, unknown>) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name, fields) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify({ store: { kind: 'memory' }, port: 0, ...fields }));
    return path;
  };
}
