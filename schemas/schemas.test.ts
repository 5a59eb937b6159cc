// The committed schemas are exactly what `npm run schemas` generates from reference/protocol/types.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSchemas, SCHEMA_BASE_URL, SCHEMA_FILES, SCHEMAS_DIR, type SchemaFile } from './build.ts';

describe('generated schemas', () => {
  const generated = buildSchemas();
  const files = Object.keys(SCHEMA_FILES) as SchemaFile[];

  it.each(files)('%s is up to date (run `npm run schemas` after changing types.ts)', (file) => {
    expect(readFileSync(join(SCHEMAS_DIR, file), 'utf8')).toBe(generated[file]);
  });

  it('regenerates byte-identically', () => {
    expect(buildSchemas()).toEqual(generated);
  });

  it.each(files)('%s is draft-07 with its own $id and no machine-specific text', (file) => {
    const schema = JSON.parse(generated[file]) as Record<string, unknown>;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toBe(`${SCHEMA_BASE_URL}${file}`);
    expect(generated[file]).not.toMatch(/\/work\/|import\(|node_modules/);
  });
});
