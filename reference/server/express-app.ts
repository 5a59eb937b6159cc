// The reference server on Express: the credit402 middleware in front of the demo routes.
import express, { type Express } from 'express';
import { credit402Middleware } from '../adapters/express.ts';
import type { Gate } from '../gate/gate.ts';
import { credit402WebhookMiddleware } from '../webhooks/express-webhook.ts';
import type { PaymentResponse } from '../protocol/types.ts';
import { demoBody, type DemoRoute, type WebhookEndpoint } from './demo-routes.ts';

/** Builds the Express app (not listening yet), with the webhook endpoint when `webhook` is given. */
export function buildExpressApp(gate: Gate, routes: readonly DemoRoute[], webhook?: WebhookEndpoint): Express {
  const app = express();
  app.disable('x-powered-by');
  // Route exactly as the gate matches (spec CR-4.9): no case folding, no trailing-slash tolerance.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(credit402Middleware(gate));
  if (webhook) app.post(webhook.path, express.raw({ type: () => true, limit: '1mb' }), credit402WebhookMiddleware(webhook.handler));
  for (const route of routes) {
    app.all(route.path, (req, res, next) => {
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      if (method !== route.method) return next();
      res.json(demoBody(route, res.locals.credit402 as PaymentResponse | undefined));
    });
  }
  return app;
}
