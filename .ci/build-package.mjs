// Builds one workspace package: TypeScript's own emit into <package>/dist (mirroring the repository), then the files it reads at run time.
// Usage: node .ci/build-package.mjs emulator|reference|harness   (the packages' `npm run build` calls it)
//        node .ci/build-package.mjs --pack                       (`npm run pack-packages`: the three tarballs into packs/, one line each)
// No source maps are emitted (tsconfig.build.json): the .ts files they would name are not in the packages, and tsc's JavaScript keeps their lines readable.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Files each package reads with fs at run time (JSON it imports is emitted by tsc), relative to the repository root. */
const ASSETS = {
  emulator: [],
  reference: ['reference/compose/default-config.json'],
  harness: ['features', 'spec/protocol.md', 'harness/conformance-profile.json'],
};

/** `npm pack` of the three workspaces into packs/ (each builds first, through its prepack), printing `packs/<file> (<size>, <n> files)` per package. */
function pack() {
  const destination = join(ROOT, 'packs');
  mkdirSync(destination, { recursive: true });
  const workspaces = Object.keys(ASSETS).flatMap((folder) => ['--workspace', folder]);
  let out;
  try {
    out = execFileSync('npm', ['pack', '--json', '--loglevel', 'error', '--pack-destination', destination, ...workspaces], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // The builds' and npm's output, shown only when packing failed.
    process.stdout.write(String(error.stdout ?? ''));
    process.stderr.write(String(error.stderr ?? ''));
    process.exit(1);
  }
  // The builds' own lines come first on stdout; npm's JSON starts at a line holding `[`.
  const packs = JSON.parse(out.slice(out.search(/^\[$/m)));
  for (const { filename, size, entryCount } of packs) console.log(`packs/${filename} (${(size / 1024).toFixed(0)} kB, ${entryCount} files)`);
}

const name = process.argv[2];
if (name === '--pack') {
  pack();
  process.exit(0);
}
if (!(name in ASSETS)) {
  console.error(`usage: node .ci/build-package.mjs ${Object.keys(ASSETS).join('|')}|--pack`);
  process.exit(2);
}
const dist = join(ROOT, name, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(ROOT, name, 'tsconfig.build.json')], { stdio: 'inherit' });
for (const asset of ASSETS[name]) cpSync(join(ROOT, asset), join(dist, asset), { recursive: true });
console.log(`built ${name}/dist`);
