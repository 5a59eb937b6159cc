// Test helper: the Bun runtime the `bun` devDependency ships, to run the reference server's sources under Bun.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './kit.ts';

/**
 * The path of the Bun binary of the `bun` package (`node_modules/bun/bin/bun.exe`, placed there by its postinstall
 * from the platform package `@oven/bun-<os>-<arch>`). Throws, saying what to do, when the package is not installed,
 * its postinstall did not place the binary, or the binary does not run on this machine.
 */
export function bunBinary(): string {
  let bin: string;
  try {
    bin = join(dirname(createRequire(import.meta.url).resolve('bun/package.json')), 'bin', 'bun.exe');
  } catch {
    throw new Error('Bun is not installed: the bun package (a devDependency) is missing; run npm ci');
  }
  if (!existsSync(bin)) throw new Error(`Bun is not installed: ${bin} is missing (the bun package's postinstall places it from @oven/bun-${process.platform}-${process.arch}; npm ci with install scripts allowed for bun)`);
  try {
    execFileSync(bin, ['--version'], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`Bun does not run on this machine (${bin} --version failed: ${(error as Error).message.split('\n')[0]}); Bun's baseline build (@oven/bun-linux-x64-baseline) serves CPUs without AVX2`);
  }
  return bin;
}

/** Quotes an argument for a POSIX shell. */
function shellQuote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`;
}

/** A `--target-cmd` that runs a TypeScript entry point of this repository under Bun, the workspace packages resolved to their sources. */
export function bunTargetCommand(file: string, args: readonly string[] = []): string {
  return [bunBinary(), '--conditions=credit402-source', join(REPO_ROOT, file), ...args].map(shellQuote).join(' ');
}
