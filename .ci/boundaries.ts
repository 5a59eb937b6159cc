// The import rules between the repository's parts: which folder may import which, and which packages shipped code may use.
import { builtinModules } from 'node:module';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** A part of the repository: its folder, the parts it may import by relative path, and the package it is published as. */
interface Part {
  folder: string;
  /** Folders it may reach with a relative import besides its own. */
  mayReach: readonly string[];
  /** Package names it must not import. */
  forbiddenPackages: readonly string[];
}

const PARTS: readonly Part[] = [
  { folder: 'emulator', mayReach: ['spec'], forbiddenPackages: ['credit402', 'credit402-conformance'] },
  { folder: 'reference', mayReach: ['spec', 'schemas'], forbiddenPackages: ['credit402-conformance'] },
  { folder: 'harness', mayReach: ['spec', 'schemas', 'features'], forbiddenPackages: ['credit402'] },
  { folder: 'schemas', mayReach: [], forbiddenPackages: ['credit402', 'credit402-conformance', 'credit402-stripe-emulator'] },
];

/** Files of a published package that are not shipped (tests and the repository's own test tooling). */
const UNSHIPPED = [/\.test\.ts$/, /^reference\/stores\/store-conformance/, /^reference\/(testing|self-test|crash-test)\//, /^reference\/client\/example\.ts$/, /^harness\/runner\/fixtures\//, /^emulator\/test-support\.ts$/];

/** A module specifier found in a source file. */
interface ImportFound {
  file: string;
  line: number;
  specifier: string;
}

// `from` is the keyword, not the end of a name such as `@fastify/reply-from`.
const IMPORT = /(?:(?<![\w$@/.-])from\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;

/** Every static and dynamic import specifier in `source`, with its line. */
export function importsOf(file: string, source: string): ImportFound[] {
  const found: ImportFound[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const line = source.slice(0, match.index).split('\n').length;
    found.push({ file, line, specifier: match[2] ?? '' });
  }
  return found;
}

/** The package name of a bare specifier (`@scope/name/sub` → `@scope/name`), or undefined for relative and built-in ones. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
  return builtinModules.includes(name) ? undefined : name;
}

/** What a shipped file of each published folder may import: its package's dependencies and peer dependencies. */
export type DeclaredPackages = Record<string, ReadonlySet<string>>;

/** The rule `found` breaks, if any; `file` paths are relative to the repository root with `/` separators. */
export function violation(found: ImportFound, declared: DeclaredPackages): string | undefined {
  const part = PARTS.find((candidate) => found.file.startsWith(`${candidate.folder}/`));
  if (part === undefined) return undefined;
  const name = packageOf(found.specifier);
  if (found.specifier.startsWith('.')) {
    const target = normalize(join(dirname(found.file), found.specifier)).split(sep).join('/');
    const folder = target.split('/')[0] ?? '';
    if (folder === part.folder || part.mayReach.includes(folder)) return undefined;
    return `${part.folder}/ must not import from ${folder}/ by path (${found.specifier})${folder === 'emulator' ? '; import the package credit402-stripe-emulator' : ''}`;
  }
  if (name === undefined) return undefined;
  if (part.forbiddenPackages.includes(name)) return `${part.folder}/ must not import the package ${name}`;
  const shipped = declared[part.folder];
  if (shipped !== undefined && !UNSHIPPED.some((pattern) => pattern.test(found.file)) && !shipped.has(name)) {
    return `shipped code of ${part.folder}/ imports ${name}, which its package.json declares neither as a dependency nor as a peer dependency`;
  }
  return undefined;
}

/** `file` relative to `root` with `/` separators. */
export const repoPath = (root: string, file: string): string => relative(root, file).split(sep).join('/');
