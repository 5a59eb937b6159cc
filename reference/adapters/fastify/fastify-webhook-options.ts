// The webhook endpoint's Fastify plugin: its options and its type without Fastify's types, apart from the plugin so that entries without Fastify can name them.
import type { WebhookHandler } from '../../webhooks/webhook-handler.ts';

/** Options of `credit402WebhookFastify`. */
export interface Credit402WebhookFastifyOptions {
  handler: WebhookHandler;
  /** Where the endpoint listens for POSTs; default `/webhooks/stripe`. */
  path?: string;
}

/**
 * A Fastify plugin typed without Fastify's types: `app.register(plugin, options)` accepts it. The `credit402/fastify`
 * entry exports the same plugins with Fastify's precise types and the typings of `request.credit402` and
 * `config: { credit402 }`.
 */
export type Credit402FastifyPlugin<Options> = (instance: unknown, options: Options) => Promise<void>;
