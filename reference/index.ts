// Public entry of the credit402 reference implementation.
export { createCredit402, type Credit402Options } from './credit402.ts';
export * from './gate/index.ts';
export * from './protocol/index.ts';
export { credit402Middleware } from './adapters/express.ts';
export { credit402Fastify, type Credit402FastifyOptions } from './adapters/fastify.ts';
export { PaymentError, type Processor, type ChargeRequest, type ChargeResult } from './processor/processor.ts';
export { StripeProcessor, type StripeProcessorOptions, type StripeApiBase } from './processor/stripe-processor.ts';
export type { Store, ClientRecord, TransactionRecord, TopUpCredit, TopUpCreditResult } from './stores/store.ts';
