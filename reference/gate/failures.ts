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

/** Runs a processor operation; anything but a PaymentError is reported and becomes `payment_failed`. */
export async function processorCall<T>(report: ErrorReporter, stage: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    report(error, stage);
    const message = error instanceof Error && error.message ? error.message : MESSAGES.PAYMENT_FAILED;
    throw new PaymentError('payment_failed', message, { cause: error });
  }
}
