// The 503 messages of store calls that change money: a failed call may still have taken effect, so they say the outcome is unknown; and that of a credit refused after a store reset.
/**
 * The 503 messages when a store call that changes money failed: the call may have been applied all the same (a
 * reply lost with its connection, a deadline passed), so none of them says that nothing was deducted. Nothing is
 * ever charged twice: a retry spends a credited balance first and otherwise sends the same charge idempotency key;
 * and a retry carrying the same `requestId` is never deducted twice (CR-6.9).
 */
export const OUTCOME_UNKNOWN = {
  /** The deduction of the credits path or of step 4 (before any charge). */
  DEDUCTION:
    'Credit store failed; nothing was charged, but whether this request was deducted is unknown (a retry with the same requestId is not deducted twice)',
  /** The atomic credit after a succeeded charge. */
  CREDIT:
    'Payment received but the credit store failed, so it may not be credited yet; retry the same request (it will not be charged twice)',
  /** The step-11 deduction after the credit. */
  DEDUCTION_AFTER_CREDIT:
    'Payment credited but the credit store failed, so whether this request was deducted is unknown; retry it with the same requestId to be served from the balance (it will not be charged again)',
} as const;

/**
 * The 503 message when the credit after a charge was refused because the store no longer holds the store id the charge's
 * key was made with (`ERR_STORE_RESET`, CR-14.13): nothing was credited, and the retry is charged under the store's new
 * id. The charge may have been a replay of a PaymentIntent credited before the reset (no new money) or, when the reset
 * fell between the charge and the credit, a new one, which stays uncredited (reconciliation lists it).
 */
export const CREDIT_REFUSED_AFTER_RESET =
  'Payment not credited: the credit store was reset during this payment; retry the request, which is charged anew';
