// Test helper: how the repository runs the conformance kit and the reference server from their sources, as separate processes (never imported).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Node options that run TypeScript sources with the workspace packages resolved to their sources. */
export const SOURCE_NODE_OPTIONS = ['--conditions=credit402-source', `--import=${pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href}`];

/** `node … <file>` for a TypeScript entry point of this repository, as an argument vector. */
function sourceCommand(file: string): string[] {
  return [process.execPath, ...SOURCE_NODE_OPTIONS, join(REPO_ROOT, file)];
}

/** The kit's command line run from its sources (`credit402-conformance` when installed). */
export const KIT_COMMAND = sourceCommand('harness/cli.ts');

/** Quotes an argument for a POSIX shell (the kit runs `--target-cmd` through the shell). */
function shellQuote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`;
}

/** A `--target-cmd` that runs a TypeScript entry point of this repository with `args`. */
export function targetCommand(file: string, args: readonly string[] = []): string {
  return [...sourceCommand(file), ...args].map(shellQuote).join(' ');
}
