// Store calls whose outcome may be unknown: a call past its deadline may still take effect, and the 503 says so.
import { StoreTimeoutError } from '../stores/store-deadline.ts';
import { StoreUnavailableError, storeCall, type ErrorReporter } from './failures.ts';

/**
 * The 503 messages when a store call that changes money ran out of time: it may still be applied, so none of
 * them says that nothing was deducted. Nothing is ever charged twice: a retry spends a credited balance first
 * and otherwise sends the same charge idempotency key.
 */
export const OUTCOME_UNKNOWN = {
  /** The deduction of the credits path or of step 4 (before any charge). */
  DEDUCTION: 'Credit store did not answer in time; nothing was charged, but this request may have been deducted',
  /** The atomic credit after a succeeded charge. */
  CREDIT:
    'Payment received but the credit store did not answer in time, so it may not be credited yet; retry the same request (it will not be charged twice)',
  /** The step-11 deduction after the credit. */
  DEDUCTION_AFTER_CREDIT:
    'Payment credited but the credit store did not answer in time, so this request may have been deducted; retry it to be served from the balance (it will not be charged again)',
} as const;

/**
 * {@link storeCall} for a call that changes money: a failure answers 503 with `message`, except a call that ran
 * out of time ({@link StoreTimeoutError}), whose 503 carries `unknownMessage` because it may still take effect.
 */
export async function moneyStoreCall<T>(
  report: ErrorReporter,
  stage: string,
  message: string,
  unknownMessage: string,
  op: () => Promise<T>,
): Promise<T> {
  try {
    return await storeCall(report, stage, message, op);
  } catch (error) {
    if (error instanceof StoreUnavailableError && error.cause instanceof StoreTimeoutError) {
      throw new StoreUnavailableError(unknownMessage, { cause: error.cause });
    }
    throw error;
  }
}
