// `npm run check-boundaries` (part of `npm test`): fails on an import across the packages' boundaries or of an undeclared package.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKED_FOLDERS, importsOf, repoPath, SOURCE_FILE, violation, type DeclaredPackages } from './boundaries.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function declaredPackages(folder: string): Set<string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), manifest.name as unknown as string]);
}

const declared: DeclaredPackages = Object.fromEntries(['emulator', 'reference', 'harness'].map((folder) => [folder, declaredPackages(folder)]));
const problems: string[] = [];
let files = 0;
let filesBroken = 0;
for (const folder of CHECKED_FOLDERS) {
  for (const entry of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
    if (!SOURCE_FILE.test(entry) || entry.endsWith('.d.ts') || entry.split('/').some((part) => part === 'dist' || part === 'node_modules')) continue;
    const file = join(ROOT, folder, entry);
    const before = problems.length;
    for (const found of importsOf(repoPath(ROOT, file), readFileSync(file, 'utf8'))) {
      const broken = violation(found, declared);
      if (broken !== undefined) problems.push(`${found.file}:${found.line}: ${broken}`);
    }
    files++;
    if (problems.length > before) filesBroken++;
  }
}
for (const problem of problems) console.log(problem);
// One check per source file: all of its imports keep the rules.
console.log(`\n${files - filesBroken} passed, ${filesBroken} failed`);
process.exitCode = problems.length > 0 ? 1 : 0;
