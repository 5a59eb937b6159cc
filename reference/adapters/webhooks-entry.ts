// Public entry of the webhook endpoint: the engine and its Fastify and Express adapters (the Fastify plugin typed without Fastify's types).
import type { Credit402FastifyPlugin, Credit402WebhookFastifyOptions } from './fastify/fastify-webhook-options.ts';
import { credit402WebhookFastify as fastifyWebhook } from './fastify/fastify-webhook.ts';

export { createWebhookHandler, DEFAULT_WEBHOOK_PATH, type WebhookHandler, type WebhookHandlerOptions, type WebhookResponse } from '../webhooks/webhook-handler.ts';
export { applyProcessorEvent, type WebhookOutcome, type WebhookStore } from '../webhooks/handle-event.ts';
export type { Credit402WebhookFastifyOptions } from './fastify/fastify-webhook-options.ts';
export { credit402WebhookMiddleware } from './express/express-webhook.ts';

/**
 * The webhook endpoint's Fastify plugin (`app.register(credit402WebhookFastify, { handler, path? })`), registered
 * without fastify-plugin so that its raw-body parser stays inside it. Typed here without Fastify's types, so that this
 * entry type-checks in a project without Fastify; `credit402/fastify` exports it with Fastify's type.
 */
export const credit402WebhookFastify = fastifyWebhook as Credit402FastifyPlugin<Credit402WebhookFastifyOptions>;
