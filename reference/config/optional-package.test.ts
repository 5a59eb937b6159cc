// Tests of the optional-package loader: a missing peer gives ERR_MISSING_PACKAGE naming it; other failures pass through.
import { describe, expect, it } from 'vitest';
import { isMissingPackage, withOptionalPackage } from './optional-package.ts';

const MISSING = 'credit402-no-such-package';

describe('withOptionalPackage', () => {
  it('names the package to install when it is missing', async () => {
    await expect(withOptionalPackage(MISSING, 'the test store', () => import(MISSING))).rejects.toThrow(
      `ERR_MISSING_PACKAGE: the test store needs the ${MISSING} package, which is not installed: npm install ${MISSING}`,
    );
  });

  it('passes other errors through unchanged', async () => {
    const failure = new Error('boom');
    await expect(withOptionalPackage('fastify', 'x', () => Promise.reject(failure))).rejects.toBe(failure);
  });

  it('resolves to the module when the package is there', async () => {
    await expect(withOptionalPackage('stripe', 'x', () => import('stripe'))).resolves.toHaveProperty('default');
  });

  it('tells a missing package from a missing module inside another package', () => {
    const error = Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /x/sqlite-store.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(isMissingPackage(error, 'better-sqlite3')).toBe(true);
    expect(isMissingPackage(error, 'redis')).toBe(false);
  });
});
