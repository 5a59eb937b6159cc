// The Fastify plugins' options, and their type as the entries without Fastify's types publish them (an Express-only project then type-checks).
import type { Gate } from '../../gate/index.ts';

/** Options of the Fastify plugin. */
export interface Credit402FastifyOptions {
  gate: Gate;
}

/** A Fastify plugin typed without Fastify's types (the webhook entry's too, which the adapters sit above). */
export type { Credit402FastifyPlugin } from './fastify-webhook-options.ts';
