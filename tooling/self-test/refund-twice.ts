// Mutant target: a refund's id is not kept, so a refund retried after a lost reply gives the price back twice
// (refundOnHandlerError on; breaks CR-11.3).
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { DeductionRefund, DeductionRefundResult, Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';
import { serveHistoryMutant } from './serve-history-mutant.ts';

/** `store` whose refunds forget their refund id: each attempt of one refund is applied as a refund of its own. */
export function refundTwice(store: Store): Store {
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    refundDeduction: (refund: DeductionRefund): Promise<DeductionRefundResult> => store.refundDeduction({ ...refund, refundId: randomUUID() }),
  } satisfies Partial<Store>);
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await serveHistoryMutant('refund-twice', refundTwice, { refundOnHandlerError: true });
}
