// Which framework `credit402 serve` runs on when nothing names one: Fastify if it is installed, else Express, else a coded error naming both.
import { readFileSync } from 'node:fs';
import { Credit402ConfigError } from '../config/config-error.ts';
import { isMissingPackage } from '../config/optional-package.ts';

/** The frameworks the server can find installed, in the order it prefers them. */
export const INSTALLABLE_FRAMEWORKS = ['fastify', 'express'] as const;
export type InstallableFramework = (typeof INSTALLABLE_FRAMEWORKS)[number];

/** Whether a package is installed where credit402 resolves it. */
export type IsInstalled = (name: InstallableFramework) => Promise<boolean>;

const LOADERS: Record<InstallableFramework, () => Promise<unknown>> = {
  fastify: () => import('fastify'),
  express: () => import('express'),
};

/** Loads the framework as the server would (the import is cached for it): false when the package is not installed, other failures thrown. */
export const isInstalled: IsInstalled = async (name) => {
  try {
    await LOADERS[name]();
    return true;
  } catch (error) {
    if (isMissingPackage(error, name)) return false;
    throw error;
  }
};

/**
 * The framework to run on when the user chose none: `fastify` when installed, else `express`; when neither is, a
 * Credit402ConfigError `ERR_MISSING_PACKAGE` naming both packages and `--framework`.
 */
export async function installedFramework(installed: IsInstalled = isInstalled): Promise<InstallableFramework> {
  for (const name of INSTALLABLE_FRAMEWORKS) if (await installed(name)) return name;
  throw new Credit402ConfigError(
    'ERR_MISSING_PACKAGE',
    'the reference server needs the fastify or the express package, and neither is installed: npm install fastify (or npm install express; --framework http runs on plain node:http)',
  );
}

/** Whether the JSON file at `path` (a --config or --profile file) names a `framework`; an unreadable file is left to the configuration loader. */
export function fileNamesFramework(path: string | undefined): boolean {
  if (path === undefined) return false;
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof value === 'object' && value !== null && 'framework' in value;
  } catch {
    return false;
  }
}
