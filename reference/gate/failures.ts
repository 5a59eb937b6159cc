// Wrappers that turn store and processor failures into the gate's two failure kinds.
import { MESSAGES } from '../protocol/constants.ts';
import { PaymentError } from '../processor/processor.ts';

/** The store failed; the gate answers 503 with this message. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
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
    report(error, stage);
    throw new StoreUnavailableError(message, { cause: error });
  }
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
 * Runs a processor operation. A card error stays `card_declined`. Anything else is `payment_failed` with the
 * processor's message, or exactly `Payment processing failed` when there is none: an empty message, or no answer
 * at all, whose error text comes from the HTTP client, not from the processor (CR-7.20, CR-13.35). Failures other
 * than the processor's own answers are reported.
 */
export async function processorCall<T>(report: ErrorReporter, stage: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    const noAnswer = gotNoAnswer(error);
    if (error instanceof PaymentError && !(noAnswer && error.code === 'payment_failed')) throw error;
    report(error, stage);
    const message = !noAnswer && error instanceof Error && error.message ? error.message : MESSAGES.PAYMENT_FAILED;
    throw new PaymentError('payment_failed', message, { cause: error });
  }
}
