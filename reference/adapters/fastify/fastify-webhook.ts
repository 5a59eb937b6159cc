// Fastify plugin of the webhook endpoint: hands the raw body (the signature covers its bytes) to the webhook engine.
import type { FastifyPluginAsync } from 'fastify';
import type { Credit402WebhookFastifyOptions } from './fastify-webhook-options.ts';
import { DEFAULT_WEBHOOK_PATH } from '../../webhooks/webhook-handler.ts';

export type { Credit402WebhookFastifyOptions } from './fastify-webhook-options.ts';

/**
 * Registers `POST <path>`. Register it without fastify-plugin (as is): its raw-body parser then stays
 * inside this plugin and leaves every other route's JSON parsing alone.
 */
export const credit402WebhookFastify: FastifyPluginAsync<Credit402WebhookFastifyOptions> = async (fastify, options) => {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  fastify.post(options.path ?? DEFAULT_WEBHOOK_PATH, async (request, reply) => {
    const signature = request.headers['stripe-signature'];
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const result = await options.handler.handle(body, typeof signature === 'string' ? signature : undefined);
    return reply.code(result.status).send(result.body);
  });
};
