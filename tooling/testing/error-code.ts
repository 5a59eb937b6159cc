// Test helper: the `code` of what a call throws, or undefined when it returns (configuration errors carry coded errors).

/** Runs `run` and resolves the `code` member of what it throws; undefined when it throws nothing or an uncoded value. */
export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
    return typeof code === 'string' ? code : undefined;
  }
}
