// Public entry `credit402/hono`: the Hono middleware (typed with Hono's types; loads without Hono), and the fetch pieces a Hono app mounts.
export { credit402Hono, type Credit402Hono, type Credit402HonoOptions, type Credit402HonoRouteOptions } from './hono.ts';
export { credit402Payment, credit402Settle } from './fetch-handler.ts';
export { credit402WebhookHandler } from './webhook.ts';
