// Tests of the import rules: each boundary the packages issue draws fails on a planted import and passes the allowed ones.
import { describe, expect, it } from 'vitest';
import { importsOf, packageOf, violation } from './boundaries.ts';

const declared = { reference: new Set(['stripe', 'fastify', 'credit402-stripe-emulator']), harness: new Set(['@cucumber/cucumber']), emulator: new Set<string>() };
const check = (file: string, specifier: string) => violation({ file, line: 1, specifier }, declared);

describe('import boundaries', () => {
  it('finds static, type-only, side-effect and dynamic imports with their lines', () => {
    const source = "import a from 'a';\nimport type { B } from './b.ts';\nimport './c.ts';\nconst d = await import('d');\nexport { e } from '../e.ts';";
    expect(importsOf('x.ts', source).map((found) => `${found.line}:${found.specifier}`)).toEqual(['1:a', '2:./b.ts', '3:./c.ts', '4:d', '5:../e.ts']);
  });

  it('knows package names', () => {
    expect([packageOf('@cucumber/cucumber/api'), packageOf('redis'), packageOf('node:fs'), packageOf('fs'), packageOf('./x.ts')]).toEqual(['@cucumber/cucumber', 'redis', undefined, undefined, undefined]);
  });

  it('keeps the kit and the library apart', () => {
    expect(check('reference/server/x.ts', '../../harness/world/world.ts')).toMatch(/reference\/ must not import from harness\//);
    expect(check('reference/testing/x.ts', 'credit402-conformance')).toMatch(/must not import the package credit402-conformance/);
    expect(check('harness/world/x.ts', '../../reference/gate/gate.ts')).toMatch(/harness\/ must not import from reference\//);
    expect(check('harness/world/x.ts', 'credit402')).toMatch(/must not import the package credit402$/);
  });

  it('reaches the emulator only as a package, and the emulator reaches neither', () => {
    expect(check('reference/testing/x.ts', '../../emulator/index.ts')).toMatch(/import the package credit402-stripe-emulator/);
    expect(check('reference/testing/x.ts', 'credit402-stripe-emulator')).toBeUndefined();
    expect(check('emulator/x.ts', '../reference/protocol/units.ts')).toMatch(/emulator\/ must not import from reference\//);
    expect(check('emulator/x.ts', '../spec/currencies.json')).toBeUndefined();
  });

  it('lets shipped code use only declared packages; tests may use anything', () => {
    expect(check('reference/gate/gate.ts', 'fast-check')).toMatch(/imports fast-check, which its package.json declares neither/);
    expect(check('reference/gate/gate.test.ts', 'fast-check')).toBeUndefined();
    expect(check('reference/adapters/fastify.ts', 'fastify')).toBeUndefined();
    expect(check('harness/world/x.ts', 'vitest')).toMatch(/imports vitest/);
  });
});
