// The default failure log: one line per failure, and a stack trace per kind of failure at most once per interval.
import type { ErrorReporter } from './failures.ts';

/** Options of {@link createErrorLog}. */
export interface ErrorLogOptions {
  /** Where the text goes (a line, or a line and a stack trace); default `console.error`. */
  write?: (text: string) => void;
  /** Least time between two stack traces of one kind of failure (stage, error name and code), in ms; default 60000. */
  stackIntervalMs?: number;
  /** First word of every line; default `credit402`. */
  prefix?: string;
  /** Clock, for tests; default `Date.now`. */
  now?: () => number;
}

const MAX_MESSAGE = 300;
const MAX_CAUSES = 3;
const MAX_KINDS = 256;

interface ErrorFields { name?: unknown; code?: unknown; message?: unknown; stack?: unknown; cause?: unknown }

const fieldsOf = (value: unknown): ErrorFields | undefined => (typeof value === 'object' && value !== null ? (value as ErrorFields) : undefined);

/** `Name [code]: message` on one line, shortened. */
function summarize(error: unknown): string {
  const fields = fieldsOf(error);
  if (fields === undefined) return oneLine(String(error));
  const name = typeof fields.name === 'string' ? fields.name : 'Error';
  const code = typeof fields.code === 'string' || typeof fields.code === 'number' ? ` [${fields.code}]` : '';
  const message = typeof fields.message === 'string' && fields.message ? `: ${oneLine(fields.message)}` : '';
  return `${name}${code}${message}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat;
}

/** The error and its causes, each summarized: `A: x (cause: B: y)`. */
function describe(error: unknown): string {
  let text = summarize(error);
  let cause = fieldsOf(error)?.cause;
  for (let depth = 0; depth < MAX_CAUSES && cause !== undefined; depth++) {
    text += ` (cause: ${summarize(cause)})`;
    cause = fieldsOf(cause)?.cause;
  }
  return text;
}

/** The stack traces of the error and its causes. */
function stacks(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current !== undefined; depth++) {
    const fields = fieldsOf(current);
    const stack = typeof fields?.stack === 'string' ? fields.stack : summarize(current);
    parts.push(depth === 0 ? stack : `caused by: ${stack}`);
    current = fields?.cause;
  }
  return parts.join('\n');
}

/**
 * An {@link ErrorReporter} for outages: every failure is one line (`<prefix>: <stage> failed: <Name> [code]:
 * message (cause: …)`), and the stack trace of a kind of failure is added at most once per `stackIntervalMs`,
 * saying how many failures of that kind were logged without one. The gate's default `onError`.
 */
export function createErrorLog(options: ErrorLogOptions = {}): ErrorReporter {
  const write = options.write ?? ((text: string) => console.error(text));
  const interval = options.stackIntervalMs ?? 60_000;
  const prefix = options.prefix ?? 'credit402';
  const now = options.now ?? Date.now;
  /** Per kind of failure: when its stack was last written, and the failures logged without one since. */
  const kinds = new Map<string, { at: number; skipped: number }>();
  return (error: unknown, stage: string) => {
    const line = `${prefix}: ${stage} failed: ${describe(error)}`;
    const fields = fieldsOf(error);
    const kind = `${stage}\u0000${String(fields?.name)}\u0000${String(fields?.code)}`;
    const seen = kinds.get(kind);
    const time = now();
    if (seen !== undefined && time - seen.at < interval) {
      seen.skipped++;
      write(line);
      return;
    }
    if (kinds.size >= MAX_KINDS && seen === undefined) kinds.clear();
    const skipped = seen?.skipped ? ` (${seen.skipped} more of this kind logged without a trace since the last one)` : '';
    kinds.set(kind, { at: time, skipped: 0 });
    write(`${line}\n${stacks(error)}${skipped}`);
  };
}
