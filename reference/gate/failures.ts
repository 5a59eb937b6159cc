// Wrappers that turn store and processor failures into the gate's two failure kinds.
import { MESSAGES } from '../protocol/constants.ts';
import { PaymentError } from '../processor/processor.ts';

/** The store failed; the gate answers 503 with this message. */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    options?: { cause?: unknown },
    /** The store operation (stage) that failed, when known. */
    readonly operation?: string,
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Called with every store or processor failure, for logging. */
export type ErrorReporter = (error: unknown, stage: string) => void;

/** Runs a store operation; a failure is reported and becomes a StoreUnavailableError carrying `message`. */
export async function storeCall<T>(report: ErrorReporter, stage: string, message: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw storeFailure(report, stage, message, error);
  }
}

/** Reports a failed store call and returns the {@link StoreUnavailableError} to throw for it (what {@link storeCall} throws). */
export function storeFailure(report: ErrorReporter, stage: string, message: string, error: unknown): StoreUnavailableError {
  report(error, stage);
  return new StoreUnavailableError(message, { cause: error }, stage);
}

/** Socket and HTTP-client error codes of a request that got no (complete) answer: Node's net/dns and undici's. */
const NO_ANSWER_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);

/**
 * True when a processor call failed without an answer from the processor (CR-7.20, CR-13.35): a timeout, or a
 * connection refused, reset or closed before the answer was complete. Looks along the `cause` chain for a Stripe
 * SDK connection error (`type: 'StripeConnectionError'`, which the SDK raises for timeouts too), a socket or
 * HTTP-client error code, a `TimeoutError`/`AbortError`, or a `noAnswer: true` flag a custom processor may set.
 */
export function gotNoAnswer(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const fields = current as { type?: unknown; code?: unknown; name?: unknown; noAnswer?: unknown; cause?: unknown };
    if (fields.noAnswer === true || fields.type === 'StripeConnectionError') return true;
    if (typeof fields.code === 'string' && NO_ANSWER_CODES.has(fields.code)) return true;
    if (fields.name === 'TimeoutError' || fields.name === 'AbortError') return true;
    current = fields.cause;
  }
  return false;
}

/**
 * Runs a processor operation. A card error stays `card_declined`, with the processor's message, which is written for
 * the cardholder. Anything else is `payment_failed` with exactly `Payment processing failed` (CR-7.20, CR-13.35,
 * CR-13.37): the processor's other messages are written for the merchant's developer (`Invalid API Key provided:
 * sk_test_****abcd`, `Unrecognized request URL (GET: /v1/)`), and without an answer there is no processor message at
 * all, only the HTTP client's. Every such failure is reported, so that the operator sees what the client does not.
 */
export async function processorCall<T>(report: ErrorReporter, stage: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (error instanceof PaymentError && error.code === 'card_declined') throw error;
    report(error, stage);
    throw new PaymentError('payment_failed', MESSAGES.PAYMENT_FAILED, { cause: error });
  }
}
