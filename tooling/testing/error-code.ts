// Test helper: the `code` of what a call throws, or undefined when it returns (configuration errors carry coded errors).
import { expect } from 'vitest';

/**
 * Runs `run` and resolves the `code` member of what it throws; undefined when it throws nothing or an uncoded value.
 * With `thrownKind`, what it throws must also be an instance of that class (the test fails otherwise).
 */
export function codeOf(run: () => unknown, thrownKind?: abstract new (...args: never[]) => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (thrownKind !== undefined) expect(error).toBeInstanceOf(thrownKind);
    const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
    return typeof code === 'string' ? code : undefined;
  }
}
