// Public entry of the credit402 reference implementation. Its types name neither Fastify's nor Express's: a project with one framework type-checks.
import { credit402Fastify as fastifyPlugin } from './adapters/fastify/fastify.ts';
import type { Credit402FastifyOptions, Credit402FastifyPlugin } from './adapters/fastify/fastify-plugin-type.ts';

export { createCredit402, createCredit402Webhooks, type Credit402Options, type Credit402WebhookOptions } from './credit402.ts';
export * from './gate/index.ts';
export * from './protocol/index.ts';
export { credit402Middleware, credit402Express, type Credit402Express, type Credit402Handler } from './adapters/express/express.ts';
export type { Credit402FastifyOptions, Credit402FastifyPlugin } from './adapters/fastify/fastify-plugin-type.ts';
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
export * from './adapters/webhooks-entry.ts';
export { reconcile, formatReport, type ReconcileOptions, type ReconcileReport, type Drift } from './reconcile/reconcile.ts';

/**
 * The Fastify plugin (`await app.register(credit402Fastify, { gate })`), typed without Fastify's types so that this
 * entry type-checks in a project without Fastify. Import it from `credit402/fastify` for Fastify's precise type and the
 * typings of `request.credit402` and of the route option `config: { credit402 }`.
 */
export const credit402Fastify = fastifyPlugin as Credit402FastifyPlugin<Credit402FastifyOptions>;
