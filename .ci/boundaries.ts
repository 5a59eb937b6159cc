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
  /** The package it is published as: its shipped code does not import itself by that name (it would pass by the layers). */
  packageName?: string;
}

const PARTS: readonly Part[] = [
  { folder: 'emulator', mayReach: ['spec'], forbiddenPackages: ['credit402', 'credit402-conformance'], packageName: 'credit402-stripe-emulator' },
  { folder: 'reference', mayReach: ['spec', 'schemas'], forbiddenPackages: ['credit402-conformance'], packageName: 'credit402' },
  { folder: 'harness', mayReach: ['spec', 'schemas', 'features'], forbiddenPackages: ['credit402'], packageName: 'credit402-conformance' },
  { folder: 'schemas', mayReach: [], forbiddenPackages: ['credit402', 'credit402-conformance', 'credit402-stripe-emulator'] },
  // The benchmarks measure the library's stages from inside; they never judge it with the kit's code.
  { folder: 'bench', mayReach: ['reference', 'spec', 'schemas'], forbiddenPackages: ['credit402-conformance'] },
  // The examples are what a user copies: the packages by name, nothing of the repository by path.
  { folder: 'examples', mayReach: [], forbiddenPackages: [] },
  // The test tooling (a private workspace, credit402-tooling) imports the library as credit402, by name, and runs the kit
  // as a command: so it sees the library as a user's tests would, and the layers inside reference/ stay checked.
  { folder: 'tooling', mayReach: ['spec', 'schemas'], forbiddenPackages: ['credit402-conformance'], packageName: 'credit402-tooling' },
];

/** The private test-tooling package: tests, benchmarks and test tooling import it by name, shipped code never. */
const TOOLING_PACKAGE = 'credit402-tooling';

/** The folders the check reads, and the source files in them: TypeScript and JavaScript modules. */
export const CHECKED_FOLDERS = PARTS.map((part) => part.folder);
export const SOURCE_FILE = /\.(ts|mts|cts|mjs|cjs|js)$/;

/** Files of a published package that are not shipped (tests and the repository's own test tooling). */
const UNSHIPPED = [/\.test\.ts$/, /^reference\/client\/example\.ts$/, /^harness\/runner\/fixtures\//, /^emulator\/test-support\.ts$/];

/** A module specifier found in a source file; `computed` when `import()` is given an expression, not a string literal. */
interface ImportFound {
  file: string;
  line: number;
  specifier: string;
  computed?: boolean;
}

/** `import(` followed by anything but a quote: an import the check cannot read. */
const COMPUTED_IMPORT = /\bimport\s*\(\s*(?!['"\s])([^)\n]{0,60})/g;

// `from` is the keyword, not the end of a name such as `@fastify/reply-from`.
const IMPORT = /(?:(?<![\w$@/.-])from\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;

/** Every static and dynamic import specifier in `source`, with its line. */
export function importsOf(file: string, source: string): ImportFound[] {
  const found: ImportFound[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const line = source.slice(0, match.index).split('\n').length;
    found.push({ file, line, specifier: match[2] ?? '' });
  }
  for (const match of source.matchAll(COMPUTED_IMPORT)) {
    const before = source.slice(0, match.index);
    // Not a comment's or a string's words: only where `import(` starts code on its line.
    const lineStart = before.lastIndexOf('\n') + 1;
    if (/\/\/|\/\*|^\s*\*|['"`]/.test(before.slice(lineStart))) continue;
    found.push({ file, line: before.split('\n').length, specifier: (match[1] ?? '').trim(), computed: true });
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
  const gateEntry = gateEntryViolation(found) ?? layerViolation(found);
  if (gateEntry !== undefined) return gateEntry;
  const part = PARTS.find((candidate) => found.file.startsWith(`${candidate.folder}/`));
  if (part === undefined) return undefined;
  const shippedFile = declared[part.folder] !== undefined && !UNSHIPPED.some((pattern) => pattern.test(found.file));
  if (found.computed) {
    return shippedFile ? `shipped code of ${part.folder}/ imports a computed specifier (import(${found.specifier})): the check cannot see what it loads; import a string literal` : undefined;
  }
  const name = packageOf(found.specifier);
  if (shippedFile && name !== undefined && name === part.packageName) {
    return `shipped code of ${part.folder}/ imports its own package ${name} by name (${found.specifier}): import the file by path, so that the layers are checked`;
  }
  if (found.specifier.startsWith('.')) {
    const target = normalize(join(dirname(found.file), found.specifier)).split(sep).join('/');
    const folder = target.split('/')[0] ?? '';
    if (folder === part.folder || part.mayReach.includes(folder)) return undefined;
    return `${part.folder}/ must not import from ${folder}/ by path (${found.specifier})${byNameHint(folder, part)}`;
  }
  if (name === undefined) return undefined;
  if (part.forbiddenPackages.includes(name)) return `${part.folder}/ must not import the package ${name}`;
  if (name === TOOLING_PACKAGE && (shippedFile || (part.folder === 'examples' && shippedExample(found.file)))) {
    return `shipped code of ${part.folder}/ must not import the test tooling ${TOOLING_PACKAGE} (${found.specifier})`;
  }
  if (part.folder === 'tooling' && /^credit402\/internal\/gate\//.test(found.specifier)) {
    return `the test tooling imports the gate engine through credit402/gate (its public entry), not ${found.specifier}`;
  }
  const shipped = declared[part.folder];
  if (shipped !== undefined && shippedFile && !shipped.has(name)) {
    return `shipped code of ${part.folder}/ imports ${name}, which its package.json declares neither as a dependency nor as a peer dependency`;
  }
  return undefined;
}

/** What a relative import across the parts should be instead, where `part` may have it: the reached folder's package, by name. */
function byNameHint(folder: string, part: Part): string {
  const packages: Record<string, string> = { emulator: 'credit402-stripe-emulator', reference: 'credit402', tooling: TOOLING_PACKAGE };
  const name = packages[folder];
  return name === undefined || part.forbiddenPackages.includes(name) ? '' : `; import the package ${name}`;
}

/** Whether a file of examples/ is an example a user copies (not a test or a test's helper). */
function shippedExample(file: string): boolean {
  return !/\.test\.ts$/.test(file) && file !== 'examples/example-processes.ts';
}

/** `file` relative to `root` with `/` separators. */
export const repoPath = (root: string, file: string): string => relative(root, file).split(sep).join('/');

/** The gate engine's folder, and its public entry (`credit402/gate`, with the adapter kit). */
const GATE_FOLDER = 'reference/gate/';
const GATE_ENTRY = 'reference/gate/index.ts';

/**
 * The rule a relative import of the gate engine breaks, if any: a file of `reference/` outside `reference/gate/`, tests
 * aside, imports the engine only through `reference/gate/index.ts`, so that the shipped adapters use nothing an adapter
 * for another framework cannot reach from the package.
 */
export function gateEntryViolation(found: ImportFound): string | undefined {
  if (!found.specifier.startsWith('.') || !found.file.startsWith('reference/') || found.file.startsWith(GATE_FOLDER) || /\.test\.ts$/.test(found.file)) return undefined;
  const target = normalize(join(dirname(found.file), found.specifier)).split(sep).join('/');
  if (!target.startsWith(GATE_FOLDER) || target === GATE_ENTRY) return undefined;
  return `code outside reference/gate/ must import the gate engine through reference/gate/index.ts (its public entry, credit402/gate), not ${found.specifier}`;
}

/**
 * The layers of `reference/`, lowest first: a folder's shipped code imports only itself and the layers below, never a
 * sibling of its own layer (the gateway nothing of the server), so no arrow runs back up and no folders import each
 * other. The root's files (`.`: `index.ts`, the library's entry, and `credit402.ts`, its one-call set-up) sit below the
 * composition; `cli.ts` belongs to `cli`, with the commands. Tests may import any layer.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['protocol', 'config'],
  ['processor', 'stores'],
  ['gate'],
  ['webhooks', 'reconcile', 'conformance-control', 'client', 'metrics'],
  ['adapters'],
  // The Web-standard adapters (`credit402/fetch`, `credit402/hono`): on the node:http adapter's pieces, with their own
  // webhook, control-route and metrics handlers.
  ['adapters/fetch'],
  ['.'],
  ['compose'],
  ['server', 'gateway'],
  ['cli'],
];

/** Sub-folders of `reference/` that are units of their own, in a layer of their own ({@link LAYERS}). */
const SUB_UNITS = ['adapters/fetch'];

/** The part of `reference/` a path belongs to: its folder (or sub-unit); `.` for the root's files, but `cli` for `cli.ts`. */
function unitOf(path: string): string {
  const inner = path.slice('reference/'.length);
  const sub = SUB_UNITS.find((unit) => inner.startsWith(`${unit}/`));
  if (sub !== undefined) return sub;
  const parts = inner.split('/');
  if (parts.length > 1) return parts[0] ?? '';
  return parts[0] === 'cli.ts' ? 'cli' : '.';
}

/** The layer of a path under `reference/` ({@link LAYERS}); undefined for a folder in no layer. */
function layerOf(path: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.includes(unitOf(path)));
  return index === -1 ? undefined : index;
}

/** The rule a relative import inside `reference/` breaks by running from a lower layer up to a higher one ({@link LAYERS}), if any. */
export function layerViolation(found: ImportFound): string | undefined {
  if (!found.specifier.startsWith('.') || !found.file.startsWith('reference/') || /\.test\.ts$/.test(found.file)) return undefined;
  const target = normalize(join(dirname(found.file), found.specifier)).split(sep).join('/');
  if (!target.startsWith('reference/')) return undefined;
  const name = unitOf;
  for (const path of [found.file, target]) {
    if (layerOf(path) === undefined) return `reference/${name(path)} is in no layer: add it to LAYERS in .ci/boundaries.ts`;
  }
  const from = layerOf(found.file);
  const to = layerOf(target);
  if (from === undefined || to === undefined || to < from || name(found.file) === name(target)) return undefined;
  const where = to === from ? 'its sibling' : 'the higher layer';
  return `reference/${name(found.file)} must not import from ${where} reference/${name(target)} (${found.specifier}): see LAYERS in .ci/boundaries.ts`;
}
