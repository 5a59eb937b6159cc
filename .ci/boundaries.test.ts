// Tests of the import rules: each boundary the packages issue draws fails on a planted import and passes the allowed ones.
import { describe, expect, it } from 'vitest';
import { gateEntryViolation, importsOf, packageOf, violation } from './boundaries.ts';

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
    expect(check('tooling/testing/x.ts', 'credit402-conformance')).toMatch(/must not import the package credit402-conformance/);
    expect(check('harness/world/x.ts', '../../reference/gate/gate.ts')).toMatch(/harness\/ must not import from reference\//);
    expect(check('harness/world/x.ts', 'credit402')).toMatch(/must not import the package credit402$/);
  });

  it('reaches the emulator only as a package, and the emulator reaches neither', () => {
    expect(check('tooling/testing/x.ts', '../../emulator/index.ts')).toMatch(/import the package credit402-stripe-emulator/);
    expect(check('tooling/testing/x.ts', 'credit402-stripe-emulator')).toBeUndefined();
    expect(check('emulator/x.ts', '../reference/protocol/units.ts')).toMatch(/emulator\/ must not import from reference\//);
    expect(check('emulator/x.ts', '../spec/currencies.json')).toBeUndefined();
  });

  it('lets shipped code use only declared packages; tests may use anything', () => {
    expect(check('reference/gate/gate.ts', 'fast-check')).toMatch(/imports fast-check, which its package.json declares neither/);
    expect(check('reference/gate/gate.test.ts', 'fast-check')).toBeUndefined();
    expect(check('reference/adapters/fastify/fastify.ts', 'fastify')).toBeUndefined();
    expect(check('harness/world/x.ts', 'vitest')).toMatch(/imports vitest/);
  });

  it('lets code outside the gate engine reach it only through its public entry (the adapter kit); tests may reach further', () => {
    const entry = /must import the gate engine through reference\/gate\/index\.ts/;
    expect(check('reference/adapters/koa.ts', '../gate/request-target.ts')).toMatch(entry);
    expect(check('reference/server/x.ts', '../gate/route-pattern.ts')).toMatch(entry);
    expect(check('reference/credit402.ts', './gate/gate.ts')).toMatch(entry);
    expect(check('reference/server/deep/x.ts', '../../gate/decision.ts')).toMatch(entry);
    expect(check('reference/adapters/x.ts', '../adapters/../gate/cors.ts')).toMatch(entry);
    expect(check('reference/adapters/koa.ts', '../gate/index.ts')).toBeUndefined();
    expect(check('reference/credit402.ts', './gate/index.ts')).toBeUndefined();
    expect(check('reference/gate/gate.ts', './route-table.ts')).toBeUndefined();
    expect(check('reference/gate/sub/x.ts', '../routes.ts')).toBeUndefined();
    expect(check('reference/adapters/express/express.test.ts', '../gate/gate.ts')).toBeUndefined();
    expect(check('reference/adapters/x.ts', '../stores/store.ts')).toBeUndefined();
    expect(gateEntryViolation({ file: 'reference/index.ts', line: 1, specifier: './gate/index.ts' })).toBeUndefined();
    expect(check('harness/world/x.ts', '../../reference/gate/gate.ts')).toMatch(/harness\/ must not import from reference\//);
  });

  it('keeps the layers of reference/: an import runs down, never up or to a sibling; tests and test tooling aside', () => {
    expect(check('reference/compose/engine.ts', '../server/start-server.ts')).toMatch(/reference\/compose must not import from the higher layer reference\/server/);
    expect(check('reference/gateway/start-gateway.ts', '../cli/serve-command.ts')).toMatch(/higher layer reference\/cli/);
    expect(check('reference/webhooks/webhook-handler.ts', '../adapters/fastify/fastify-plugin-type.ts')).toMatch(/higher layer reference\/adapters/);
    expect(check('reference/credit402.ts', './compose/engine.ts')).toMatch(/higher layer reference\/compose/);
    expect(check('reference/server/start-server.ts', '../compose/engine.ts')).toBeUndefined();
    expect(check('reference/gateway/start-gateway.ts', '../server/demo-routes.ts')).toMatch(/must not import from its sibling reference\/server/);
    expect(check('reference/cli/reconcile-command.ts', '../reconcile/reconcile.ts')).toBeUndefined();
    expect(check('reference/cli.ts', './cli/serve-command.ts')).toBeUndefined();
    expect(check('reference/compose/engine.test.ts', '../server/start-server.ts')).toBeUndefined();
    expect(check('tooling/testing/reference-stack.ts', 'credit402/internal/server/start-server')).toBeUndefined();
  });

  it('keeps the Web-standard adapters (reference/adapters/fetch/) a layer of their own, above the other adapters', () => {
    expect(check('reference/adapters/fetch/x.ts', '../../metrics/metrics-endpoint.ts')).toBeUndefined();
    expect(check('reference/adapters/fetch/x.ts', '../node-http.ts')).toBeUndefined();
    expect(check('reference/adapters/fetch/x.ts', './y.ts')).toBeUndefined();
    expect(check('reference/adapters/x.ts', './fetch/y.ts')).toMatch(/reference\/adapters must not import from the higher layer reference\/adapters\/fetch/);
    expect(check('reference/metrics/x.ts', '../adapters/fetch/y.ts')).toMatch(/higher layer reference\/adapters\/fetch/);
    expect(check('reference/metrics/x.ts', '../adapters/router-path.ts')).toMatch(/higher layer reference\/adapters/);
    expect(check('reference/adapters/fastify/fastify-metrics.ts', '../../metrics/metrics-endpoint.ts')).toBeUndefined();
    expect(check('reference/server/x.ts', '../adapters/fetch/y.ts')).toBeUndefined();
    expect(check('reference/adapters/fetch/x.ts', '../../compose/engine.ts')).toMatch(/higher layer reference\/compose/);
  });

  it('refuses shipped code that imports the test tooling, its own package by name, or a computed specifier', () => {
    expect(check('reference/server/x.ts', 'credit402-tooling/testing/fake-processor')).toMatch(/must not import the test tooling credit402-tooling/);
    expect(check('reference/gate/x.ts', '../../tooling/self-test/history.ts')).toMatch(/reference\/ must not import from tooling\/ by path .*import the package credit402-tooling/);
    expect(check('reference/gate/x.test.ts', 'credit402-tooling/testing/fake-processor')).toBeUndefined();
    expect(check('tooling/self-test/x.ts', '../testing/kit.ts')).toBeUndefined();
    expect(check('tooling/self-test/x.ts', '../../reference/server/start-server.ts')).toMatch(/tooling\/ must not import from reference\/ by path .*import the package credit402/);
    expect(check('tooling/self-test/x.ts', 'credit402/internal/gate/spend')).toMatch(/through credit402\/gate/);
    expect(check('reference/server/x.ts', 'credit402/stores')).toMatch(/imports its own package credit402 by name/);
    expect(check('harness/world/x.ts', 'credit402-conformance')).toMatch(/imports its own package credit402-conformance/);
    expect(check('reference/server/x.test.ts', 'credit402/stores')).toBeUndefined();
    expect(check('tooling/testing/x.ts', 'credit402')).toBeUndefined();
    const computed = importsOf('reference/compose/x.ts', "const name = 'redis';\nconst m = await import(name);\n// import(later)\nconst t = await import('fastify');");
    expect(computed.map((found) => `${found.line}:${found.specifier}:${found.computed === true}`)).toEqual(['4:fastify:false', '2:name:true']);
    expect(violation(computed[1] as (typeof computed)[number], declared)).toMatch(/computed specifier \(import\(name\)\)/);
    expect(violation({ file: 'tooling/testing/x.ts', line: 1, specifier: 'MODULE', computed: true }, declared)).toBeUndefined();
  });

  it('covers the benchmarks and the examples, in .mjs too', () => {
    expect(check('bench/x.ts', '../reference/gate/gate.ts')).toBeUndefined();
    expect(check('bench/x.ts', '../harness/world/world.ts')).toMatch(/bench\/ must not import from harness\//);
    expect(check('bench/x.ts', 'credit402-conformance')).toMatch(/must not import the package credit402-conformance/);
    expect(check('examples/x.mjs', '../reference/gate/index.ts')).toMatch(/examples\/ must not import from reference\//);
    expect(check('examples/x.mjs', 'credit402/fastify')).toBeUndefined();
    expect(check('examples/examples.test.ts', 'credit402-tooling/testing/kit')).toBeUndefined();
    expect(check('examples/examples.test.ts', '../tooling/testing/kit.ts')).toMatch(/examples\/ must not import from tooling\/ by path/);
    expect(check('examples/x.mjs', 'credit402-tooling/testing/kit')).toMatch(/must not import the test tooling/);
    expect(check('examples/x.test.ts', '../reference/gate/gate.ts')).toMatch(/examples\/ must not import from reference\//);
  });
});
