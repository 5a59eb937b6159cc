// Express-style handler of the webhook endpoint: hands the raw body (the signature covers its bytes) to the webhook engine.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookHandler } from '../../webhooks/webhook-handler.ts';

type Request = IncomingMessage & { body?: unknown };

async function rawBody(req: Request): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The webhook endpoint as connect-style `(req, res, next)`: mount it as
 * `app.post(path, express.raw({ type: () => true }), handler)`, or alone (it then reads the request
 * stream). A JSON body parser must not run before it: the signature covers the exact bytes.
 */
export function credit402WebhookMiddleware(handler: WebhookHandler): (req: Request, res: ServerResponse, next: (error?: unknown) => void) => Promise<void> {
  return async function credit402Webhook(req, res, next) {
    try {
      const signature = req.headers['stripe-signature'];
      const result = await handler.handle(await rawBody(req), typeof signature === 'string' ? signature : undefined);
      res.writeHead(result.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(result.body));
    } catch (error) {
      next(error);
    }
  };
}
