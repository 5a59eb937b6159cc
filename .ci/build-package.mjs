// Builds one workspace package: TypeScript's own emit into <package>/dist (mirroring the repository), then the files it reads at run time.
// Usage: node .ci/build-package.mjs emulator|reference|harness   (the packages' `npm run build` calls it)
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Files each package reads with fs at run time (JSON it imports is emitted by tsc), relative to the repository root. */
const ASSETS = {
  emulator: [],
  reference: ['reference/server/default-config.json'],
  harness: ['features', 'spec/protocol.md', 'harness/conformance-profile.json'],
};

const name = process.argv[2];
if (!(name in ASSETS)) {
  console.error(`usage: node .ci/build-package.mjs ${Object.keys(ASSETS).join('|')}`);
  process.exit(2);
}
const dist = join(ROOT, name, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(ROOT, name, 'tsconfig.build.json')], { stdio: 'inherit' });
for (const asset of ASSETS[name]) cpSync(join(ROOT, asset), join(dist, asset), { recursive: true });
console.log(`built ${name}/dist`);
