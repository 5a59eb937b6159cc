// The reference server's and the gateway's failure log: one line per failure with a code; stack traces only at the debug level.
import type { ErrorReporter } from '../gate/index.ts';

/** The log levels: `info` (default) writes one line per failure, `debug` adds its stack traces. */
export const LOG_LEVELS = ['info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const MAX_MESSAGE = 300;
const MAX_CAUSES = 3;

interface ErrorFields { name?: unknown; code?: unknown; message?: unknown; stack?: unknown; cause?: unknown; type?: unknown; detail?: unknown; statusCode?: unknown }

const fieldsOf = (value: unknown): ErrorFields | undefined => (typeof value === 'object' && value !== null ? (value as ErrorFields) : undefined);

/** The Stripe SDK's class name of an error it raised (`StripeAuthenticationError`, `StripeConnectionError`, …), else undefined. */
function stripeType(fields: ErrorFields | undefined): string | undefined {
  return typeof fields?.type === 'string' && fields.type.startsWith('Stripe') ? fields.type : undefined;
}

/** What the operator can do about a processor failure, by the Stripe SDK's error class. */
const STRIPE_HINTS: Record<string, string> = {
  StripeAuthenticationError: 'the Stripe API rejected the secret key: check stripeSecretKey (STRIPE_SECRET_KEY) and stripeApi (--stripe-api)',
  StripePermissionError: 'the secret key may not make this call: check its permissions',
  StripeConnectionError: 'no answer from the Stripe API: check stripeApi (--stripe-api) and the network',
};

/** The error and its causes, at most {@link MAX_CAUSES} deep; under a Stripe SDK error without a cause, its `detail` (the socket error of a connection failure). */
function chain(error: unknown): unknown[] {
  const out = [error];
  const next = (item: unknown): unknown => {
    const fields = fieldsOf(item);
    return fields?.cause ?? (stripeType(fields) && fieldsOf(fields?.detail) ? fields?.detail : undefined);
  };
  let cause = next(error);
  while (out.length <= MAX_CAUSES && cause !== undefined) {
    out.push(cause);
    cause = next(cause);
  }
  return out;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat;
}

/** `Name [code]: message` of one error, on one line (`[code]` when it has one; a Stripe SDK error named by its class, with its HTTP status); without the message when it repeats `parentMessage`. */
function summarize(error: unknown, parentMessage?: unknown): string {
  const fields = fieldsOf(error);
  if (fields === undefined) return oneLine(String(error));
  const ownName = typeof fields.name === 'string' && fields.name !== '' ? fields.name : 'Error';
  const name = ownName === 'Error' ? (stripeType(fields) ?? ownName) : ownName;
  const status = stripeType(fields) && typeof fields.statusCode === 'number' ? ` (HTTP ${fields.statusCode})` : '';
  const code = typeof fields.code === 'string' || typeof fields.code === 'number' ? ` [${fields.code}]` : '';
  const message = typeof fields.message === 'string' && fields.message !== '' && fields.message !== parentMessage ? `: ${oneLine(fields.message)}` : '';
  return `${name}${code}${status}${message}`;
}

/** A processor's PaymentError over another error: its code (`payment_failed`) is what the client was answered, not what failed. */
const isPaymentAnswer = (fields: ErrorFields | undefined): boolean => fields?.name === 'PaymentError' && fields.cause !== undefined;

/**
 * The code a failure is logged under: the first `code` along the error and its causes (`ERR_STORE_TIMEOUT`,
 * `ECONNREFUSED`, `resource_missing`, …; a processor's `payment_failed` only when nothing under it says more), else the
 * Stripe SDK's error class (`StripeAuthenticationError`), else the first error name that is not the bare `Error`
 * (`InjectedStoreOutage`), else `ERROR`. Something to count and alert on, whatever the error.
 */
export function failureCode(error: unknown): string {
  const errors = chain(error).map(fieldsOf);
  const codeOf = (fields: ErrorFields | undefined): string | undefined => {
    const code = fields?.code;
    return (typeof code === 'string' && code !== '') || typeof code === 'number' ? String(code) : undefined;
  };
  for (const fields of errors) if (!isPaymentAnswer(fields) && codeOf(fields)) return codeOf(fields) as string;
  for (const fields of errors) if (stripeType(fields)) return stripeType(fields) as string;
  for (const fields of errors) if (codeOf(fields)) return codeOf(fields) as string;
  for (const fields of errors) {
    const name = fields?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
  }
  return 'ERROR';
}

/**
 * One line: `<prefix>: <what> failed [<code>]: <Name> [code]: message (cause: <Name> [code]: message)`, and after a
 * Stripe SDK error what to check (` - the Stripe API rejected the secret key: …`).
 */
export function failureLine(prefix: string, what: string, error: unknown): string {
  const errors = chain(error);
  const because = errors.slice(1).map((cause, index) => ` (cause: ${summarize(cause, fieldsOf(errors[index])?.message)})`).join('');
  const type = errors.map((item) => stripeType(fieldsOf(item))).find((found) => found !== undefined && found in STRIPE_HINTS);
  const hint = type === undefined ? '' : ` - ${STRIPE_HINTS[type]}`;
  return `${prefix}: ${what} failed [${failureCode(error)}]: ${summarize(errors[0])}${because}${hint}`;
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
