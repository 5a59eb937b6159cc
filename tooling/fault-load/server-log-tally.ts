// Tallies the server's failure log lines during a fault load (thousands under faults) instead of printing them, by their code.

/** Counts of the swallowed lines by `[CODE]`, and the lines without one. */
export interface LogTally {
  lines: number;
  byCode: Map<string, number>;
}

/**
 * Swallows what is written to stderr until the returned `stop()` and counts the lines by their `[CODE]` (the server's
 * one-line failure log); anything else written meanwhile is counted too, under `(no code)`.
 */
export function tallyStderr(): { tally: LogTally; stop(): void } {
  const tally: LogTally = { lines: 0, byCode: new Map() };
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array): boolean => {
    for (const line of String(chunk).split('\n')) {
      if (line.trim() === '') continue;
      const code = /\[([A-Z0-9_]+)\]/.exec(line)?.[1] ?? '(no code)';
      tally.lines++;
      tally.byCode.set(code, (tally.byCode.get(code) ?? 0) + 1);
    }
    return true;
  }) as typeof process.stderr.write;
  const stop = (): void => {
    process.stderr.write = write;
  };
  return { tally, stop };
}
