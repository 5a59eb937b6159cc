// Mutant target: a refund retried after its request id's repeat was served still gives the price back: the repeat is
// served free (refundOnHandlerError on; breaks CR-6.9).
import { pathToFileURL } from 'node:url';
import type { DeductionRefund, DeductionRefundResult, Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';
import { serveHistoryMutant } from './serve-history-mutant.ts';

/**
 * `store` whose refunds ignore the `superseded` rule: a refund the store answers `superseded` (the deduction's request
 * id was answered as its repeat first, so the deduction paid for that answer) is given back all the same.
 */
export function refundAfterRepeat(store: Store): Store {
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    refundDeduction: async (refund: DeductionRefund): Promise<DeductionRefundResult> => {
      const result = await store.refundDeduction(refund);
      if (result.status !== 'superseded') return result;
      return { status: 'refunded', balance: await store.addBalance(refund.clientId, refund.currency, refund.amount) };
    },
  } satisfies Partial<Store>);
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await serveHistoryMutant('refund-after-repeat', refundAfterRepeat, { refundOnHandlerError: true });
}
