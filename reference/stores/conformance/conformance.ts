// Public entry of the store conformance suite (`credit402/stores/conformance`): what a store author's vitest file runs. Needs vitest and fast-check.
export { describeStoreConformance } from './store-conformance.ts';
export type { StoreIdStorage } from './store-conformance-store-id.ts';
export {
  INSUFFICIENT, balanceOf, deduct, deducted, deductionRecord, expectFailure, newClientId, newPaymentIntentId, newRefundId, newRequestId,
} from './store-conformance-helpers.ts';
