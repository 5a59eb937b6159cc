// Public entry of the credit402 reference implementation.
export { createCredit402, createCredit402Webhooks, type Credit402Options, type Credit402WebhookOptions } from './credit402.ts';
export * from './gate/index.ts';
export * from './protocol/index.ts';
export { credit402Middleware, credit402Express, type Credit402Express, type Credit402Handler } from './adapters/express.ts';
export { credit402Fastify, type Credit402FastifyOptions } from './adapters/fastify.ts';
export {
  PaymentError,
  WebhookSignatureError,
  type Processor,
  type ChargeRequest,
  type ChargeResult,
  type ProcessorEvent,
  type SucceededTopUp,
  type TopUpMetadata,
} from './processor/processor.ts';
export { StripeProcessor, type StripeProcessorOptions, type StripeApiBase } from './processor/stripe-processor.ts';
export type { Store, ClientRecord, TransactionRecord, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult } from './stores/store.ts';
export * from './webhooks/index.ts';
export { reconcile, formatReport, type ReconcileOptions, type ReconcileReport, type Drift } from './reconcile/reconcile.ts';
