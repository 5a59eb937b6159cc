// Public entry `credit402/fetch`: the gate in front of Web-standard fetch handlers (`(request) => Response`: Workers, Bun, Deno, Next.js route handlers, Hono's `app.fetch`), and the webhook endpoint as one.
export { credit402Handler, credit402Payment, credit402Settle, withCredit402, type Credit402FetchOptions, type Credit402RouteOptions, type FetchHandler } from './fetch-handler.ts';
export type { BodyCheck } from './body-check.ts';
export { credit402WebhookHandler } from './webhook.ts';
export { routeKeyPath } from './route-key.ts';
