// The reference server on Express with per-route gating: each gated demo route carries `credit402.route(price)`, Express's router decides what matched.
import express5, { type Express, type RequestHandler } from 'express';
import { credit402Express } from '../adapters/express/express-route.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import type { Gate } from '../gate/index.ts';
import type { PaymentResponse, RouteConfig } from '../protocol/types.ts';
import { credit402WebhookMiddleware } from '../adapters/express/express-webhook.ts';
import { demoAnswer, mountsHandledRoute, paramsOf, type DemoRoute } from './demo-routes.ts';
import { expressErrorAnswers, expressErrorAnswersTo } from './error-answers.ts';
import { mountControl, newExpressApp, type ExpressAppOptions } from './express-app.ts';
import { expressPath, inRouterOrder, takesBareWildcard } from './express-route-paths.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from '../conformance-control/handler-runs.ts';

/** Declares `handlers` for `method` on `path` (`app.route(path).get(…)`, `.post(…)`, …). */
function declareRoute(app: Express, method: string, path: string, handlers: RequestHandler[]): void {
  const route = app.route(path);
  const declare: unknown = Reflect.get(route, method.toLowerCase());
  if (typeof declare !== 'function') throw new Credit402ConfigError('ERR_SERVER_CONFIG', `Express declares no routes of the method ${method}`);
  declare.apply(route, handlers);
}

/**
 * Builds the per-route Express app (not listening yet): the gate has no route table; `credit402.targetGuard()` runs
 * before the router, and each gated demo route is declared with `credit402.route(prices[route.key])` before its
 * handler, every other route without. Route keys' paths become Express paths (`:name` as it is, a final `*` as `*` on
 * Express 4 and `{*rest}` on Express 5), declared most specific first since Express runs the first route that
 * matches; routing is case-sensitive and strict, as the gate matches. The rest is the table app's (`buildExpressApp`):
 * the webhook endpoint when `webhook` is given, the handled route counting `runs` (unless `options.handled` is false),
 * the control routes with `control`.
 */
export function buildExpressPerRouteApp(gate: Gate, routes: readonly DemoRoute[], prices: Readonly<Record<string, RouteConfig>>, options: ExpressAppOptions = {}): Express {
  const { webhook, runs = new HandlerRuns(), control, express = express5 } = options;
  const app = newExpressApp(express, options);
  const credit402 = credit402Express(gate);
  app.use(credit402.targetGuard());
  if (webhook) app.post(webhook.path, express.raw({ type: () => true, limit: '1mb' }), credit402WebhookMiddleware(webhook.handler));
  const bareWildcard = takesBareWildcard(express);
  for (const route of inRouterOrder(routes)) {
    const price = route.gated ? prices[route.key] : undefined;
    const handler: RequestHandler = (req, res) => {
      const answer = demoAnswer(route, runs, req.headers[REQUEST_ID_HEADER], res.locals.credit402 as PaymentResponse | undefined, route.segments === undefined ? undefined : paramsOf(route, Object.values(req.params)));
      // A new response's status is 200 already.
      if (answer.status !== 200) res.status(answer.status);
      res.json(answer.body);
    };
    declareRoute(app, route.method, expressPath(route.path, bareWildcard), price ? [credit402.route(price), handler] : [handler]);
  }
  if (mountsHandledRoute(routes, options)) app.get(HANDLED_PATH, (req, res) => void res.json(runs.answer(req.originalUrl)));
  if (control) mountControl(app, control, express);
  app.use(options.log ? expressErrorAnswersTo(options.log) : expressErrorAnswers);
  return app;
}
