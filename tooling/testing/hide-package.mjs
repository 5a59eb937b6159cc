// Test helper, a Node module hook (`node --import …/hide-package.mjs`): the package CREDIT402_HIDE_PACKAGE names resolves as if it were not installed.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const hidden = process.env.CREDIT402_HIDE_PACKAGE;

// Imported by --import on the main thread: registers this same file as the resolve hook (which runs on the hooks thread).
if (isMainThread && hidden) register(import.meta.url);

/** Node's resolve hook: refuses the hidden package with the error Node gives for a package that is not installed. */
export async function resolve(specifier, context, nextResolve) {
  if (hidden && (specifier === hidden || specifier.startsWith(`${hidden}/`))) {
    throw Object.assign(new Error(`Cannot find package '${hidden}' imported from ${context.parentURL}`), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return nextResolve(specifier, context);
}
