// Loads a module that needs an optional peer package (a framework, a store driver, the emulator), with a coded error naming the package to install.
import { Credit402ConfigError } from './config-error.ts';

/** Whether `error` says that `packageName` itself (not something inside it) could not be found. */
export function isMissingPackage(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return new RegExp(`(?:package|module) '${packageName.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}'`).test(message);
}

/**
 * Runs `load` (a dynamic import); when it fails because `packageName` is not installed, throws a
 * Credit402ConfigError `ERR_MISSING_PACKAGE` saying what needs it and how to install it.
 */
export async function withOptionalPackage<T>(packageName: string, neededFor: string, load: () => Promise<T>, install = packageName): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, packageName)) throw error;
    throw new Credit402ConfigError('ERR_MISSING_PACKAGE', `${neededFor} needs the ${packageName} package, which is not installed: npm install ${install}`);
  }
}
