// Fastify 5 plugin: an onRequest hook that reads the request and applies the gate's decision.
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Gate } from '../gate/gate.ts';
import type { PaymentResponse } from '../protocol/types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The PaymentResponse of a paid request, set before the handler runs. */
    credit402?: PaymentResponse;
    /** Gives the price back (`refundOnHandlerError`); called by the plugin when the answer is 5xx. */
    credit402Refund?: () => Promise<void>;
  }
}

/** Options of the Fastify plugin. */
export interface Credit402FastifyOptions {
  gate: Gate;
}

const plugin: FastifyPluginAsync<Credit402FastifyOptions> = async (fastify, { gate }) => {
  fastify.decorateRequest('credit402', undefined);
  fastify.decorateRequest('credit402Refund', undefined);
  fastify.addHook('onRequest', async (request, reply) => {
    const decision = await gate.handle({ method: request.method, url: request.url, paymentHeader: request.headers.payment });
    if (decision.action === 'respond') return reply.code(decision.status).headers(decision.headers).send(decision.body);
    if (decision.action === 'serve') {
      reply.headers(decision.headers);
      request.credit402 = decision.payment;
      request.credit402Refund = decision.refund;
    }
  });
  // A handler that throws is answered 500 by Fastify, so the status covers both failure kinds.
  fastify.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 500) await request.credit402Refund?.();
  });
};

/** The credit402 Fastify plugin; register it with `{ gate }` before the gated routes. */
export const credit402Fastify = fp(plugin, { fastify: '5.x', name: 'credit402' });
