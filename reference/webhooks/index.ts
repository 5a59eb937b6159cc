// Public entry of the webhook endpoint: the engine and its Fastify and Express adapters.
export { createWebhookHandler, DEFAULT_WEBHOOK_PATH, type WebhookHandler, type WebhookHandlerOptions, type WebhookResponse } from './webhook-handler.ts';
export { applyProcessorEvent, type WebhookOutcome, type WebhookStore } from './handle-event.ts';
export { credit402WebhookFastify, type Credit402WebhookFastifyOptions } from './fastify-webhook.ts';
export { credit402WebhookMiddleware } from './express-webhook.ts';
