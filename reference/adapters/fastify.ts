// Fastify 5 plugin: an onRequest hook (it runs after Fastify's router) that decides on the route the router matched and applies the decision.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ServeDecision } from '../gate/decision.ts';
import type { Gate } from '../gate/gate.ts';
import { ambiguousTarget, readRequestTarget } from '../gate/request-target.ts';
import { routerDecidedTarget } from '../gate/route-agreement.ts';
import type { PaymentResponse } from '../protocol/types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The PaymentResponse of a paid request, set before the handler runs. */
    credit402?: PaymentResponse;
  }
}

/** Options of the Fastify plugin. */
export interface Credit402FastifyOptions {
  gate: Gate;
}

/** The path of the route Fastify's router matched, in Fastify's syntax (`/api/users/:id`); null when it matched none. */
function matchedPath(request: FastifyRequest): string | null {
  return request.is404 ? null : (request.routeOptions.url ?? null);
}

/** The `settle` of each paid request still being answered: the plugin's own, not a request decoration. */
const settles = new WeakMap<FastifyRequest, ServeDecision['settle']>();

const plugin: FastifyPluginAsync<Credit402FastifyOptions> = async (fastify, { gate }) => {
  fastify.decorateRequest('credit402', undefined);
  fastify.addHook('onRequest', async (request, reply) => {
    // The router has already chosen the handler: the gate decides on that route, so both agree (spec CR-4.9).
    const target = routerDecidedTarget(gate, request.method, request.url, matchedPath(request));
    if (target === 'free') return;
    const decision = await gate.handle({ method: request.method, url: target.url, route: target.route, paymentHeader: request.headers.payment, clientAddress: request.ip, origin: request.headers.origin });
    if (decision.action === 'respond') return reply.code(decision.status).headers(decision.headers).send(decision.body);
    if (decision.action === 'serve') {
      reply.headers(decision.headers);
      request.credit402 = decision.payment;
      settles.set(request, decision.settle);
    }
  });
  // The answer is sent: report its status to the engine (a handler that threw was answered by Fastify's error handler).
  fastify.addHook('onResponse', async (request, reply) => {
    const settle = settles.get(request);
    settles.delete(request);
    await settle?.({ status: reply.statusCode });
  });
};

/**
 * The credit402 Fastify plugin; register it with `{ gate }` before the gated routes. Its hook runs after Fastify's
 * router: a request the router sends to a gated route's handler is decided on that route (challenged, charged at
 * its price), one it sends to no gated route's handler is free, and an ambiguous target (spec CR-4.10) is answered 400.
 */
export const credit402Fastify = fp(plugin, { fastify: '5.x', name: 'credit402' });

/**
 * Fastify's `frameworkErrors` option for apps with the plugin (`Fastify({ frameworkErrors: credit402FrameworkErrors })`).
 * Fastify answers a target its router cannot read (`FST_ERR_BAD_URL`, e.g. `http://x/a#b`) before any hook runs: an
 * ambiguous one (spec CR-4.10) gets the gate's 400 here, any other framework error goes to the error handler.
 */
export function credit402FrameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const reading = readRequestTarget(request.url);
  if (reading.ok) {
    void reply.send(error);
    return;
  }
  const answer = ambiguousTarget(reading.reason);
  void reply.code(answer.status).headers(answer.headers).send(answer.body);
}
