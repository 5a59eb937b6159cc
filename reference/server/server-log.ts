// The reference server's and the gateway's failure log: one line per failure with a code; stack traces only at the debug level.
import type { ErrorReporter } from '../gate/failures.ts';

/** The log levels: `info` (default) writes one line per failure, `debug` adds its stack traces. */
export const LOG_LEVELS = ['info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const MAX_MESSAGE = 300;
const MAX_CAUSES = 3;

interface ErrorFields { name?: unknown; code?: unknown; message?: unknown; stack?: unknown; cause?: unknown }

const fieldsOf = (value: unknown): ErrorFields | undefined => (typeof value === 'object' && value !== null ? (value as ErrorFields) : undefined);

/** The error and its causes, at most {@link MAX_CAUSES} deep. */
function chain(error: unknown): unknown[] {
  const out = [error];
  let cause = fieldsOf(error)?.cause;
  while (out.length <= MAX_CAUSES && cause !== undefined) {
    out.push(cause);
    cause = fieldsOf(cause)?.cause;
  }
  return out;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat;
}

/** `Name [code]: message` of one error, on one line (`[code]` when it has one). */
function summarize(error: unknown): string {
  const fields = fieldsOf(error);
  if (fields === undefined) return oneLine(String(error));
  const name = typeof fields.name === 'string' && fields.name !== '' ? fields.name : 'Error';
  const code = typeof fields.code === 'string' || typeof fields.code === 'number' ? ` [${fields.code}]` : '';
  return typeof fields.message === 'string' && fields.message !== '' ? `${name}${code}: ${oneLine(fields.message)}` : `${name}${code}`;
}

/**
 * The code a failure is logged under: the first `code` along the error and its causes (`ERR_STORE_TIMEOUT`,
 * `ECONNREFUSED`, `resource_missing`, `payment_failed`, …), else the first error name that is not the bare `Error`
 * (`InjectedStoreOutage`), else `ERROR`. Something to count and alert on, whatever the error.
 */
export function failureCode(error: unknown): string {
  const errors = chain(error);
  for (const item of errors) {
    const code = fieldsOf(item)?.code;
    if ((typeof code === 'string' && code !== '') || typeof code === 'number') return String(code);
  }
  for (const item of errors) {
    const name = fieldsOf(item)?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
  }
  return 'ERROR';
}

/** One line: `<prefix>: <what> failed [<code>]: <Name> [code]: message (cause: <Name> [code]: message)`. */
export function failureLine(prefix: string, what: string, error: unknown): string {
  const [first, ...causes] = chain(error);
  const because = causes.map((cause) => ` (cause: ${summarize(cause)})`).join('');
  return `${prefix}: ${what} failed [${failureCode(error)}]: ${summarize(first)}${because}`;
}

/** The stack traces of the error and its causes. */
function stacks(error: unknown): string {
  return chain(error).map((item, depth) => {
    const stack = fieldsOf(item)?.stack;
    const text = typeof stack === 'string' ? stack : summarize(item);
    return depth === 0 ? text : `caused by: ${text}`;
  }).join('\n');
}

/** A failure log at one level. */
export interface ServerLog {
  readonly level: LogLevel;
  /** Logs one failure of `what` (a gate stage, a webhook step, `GET /x`): one line, and its stacks at debug. */
  failure(prefix: string, what: string, error: unknown): void;
  /** An `onError` for the gate or the webhook endpoint, writing under `prefix`. */
  reporter(prefix: string): ErrorReporter;
}

/** Options of {@link createServerLog}. */
export interface ServerLogOptions {
  /** Default `info`. */
  level?: LogLevel;
  /** Where the text goes; default console.error. */
  write?: (text: string) => void;
}

/**
 * The failure log of the reference server and the gateway: every failure is one line with a code (an outage of 139
 * requests is 139 lines), and only the `debug` level adds the stack traces of the error and its causes.
 */
export function createServerLog(options: ServerLogOptions = {}): ServerLog {
  const level = options.level ?? 'info';
  const write = options.write ?? ((text: string) => console.error(text));
  const failure = (prefix: string, what: string, error: unknown): void => {
    const line = failureLine(prefix, what, error);
    write(level === 'debug' ? `${line}\n${stacks(error)}` : line);
  };
  return { level, failure, reporter: (prefix) => (error, stage) => failure(prefix, stage, error) };
}
