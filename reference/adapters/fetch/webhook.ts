// The Stripe webhook endpoint as a fetch handler: hands the raw body (the signature covers its bytes) to the webhook engine.
import { Buffer } from 'node:buffer';
import type { WebhookHandler } from '../../webhooks/webhook-handler.ts';
import { bodyWithin, jsonResponse } from './read-body.ts';

/** The largest webhook delivery read, as the other adapters' raw-body parsers take it (1 MiB). */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * The webhook endpoint as a fetch handler `(request) => Response`: mount it on the endpoint's path for POST
 * (`app.post('/webhooks/stripe', (c) => webhook(c.req.raw))` on Hono; `export const POST = webhook` in a Next.js
 * route file). Nothing may read the body before it: the signature covers the exact bytes. A body over 1 MiB is
 * answered 413; the rest as the webhook engine answers (200 once applied, 400 on a bad signature, 500 to be
 * delivered again).
 */
export function credit402WebhookHandler(handler: WebhookHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = await bodyWithin(request, WEBHOOK_BODY_LIMIT);
    if (body instanceof Response) return body;
    const result = await handler.handle(Buffer.from(body.buffer, body.byteOffset, body.byteLength), request.headers.get('stripe-signature') ?? undefined);
    return jsonResponse(result.status, result.body);
  };
}
