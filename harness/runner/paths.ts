// Where the kit's files are: the kit's root (the repository in development, the package's dist/ when installed) and how to load its support code.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The kit's root, with a trailing slash: `features/`, `spec/`, `harness/` and `schemas/` lie below it. In the repository
 * that is the repository root; in the installed package it is `dist/`, whose tree mirrors the repository's.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Whether the kit runs from its TypeScript sources (development) or from compiled JavaScript (installed). */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Extension of the kit's own modules as they are loaded now: `ts` or `js`. */
export const MODULE_EXTENSION = FROM_SOURCE ? 'ts' : 'js';

/**
 * Node options that let a Node process started by the kit load what this one loads: from the sources, tsx's loader
 * and the workspace packages' source condition; nothing when compiled.
 */
export function childNodeOptions(): string[] {
  if (!FROM_SOURCE) return [];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--conditions=credit402-source', `--import=${tsx}`];
}
