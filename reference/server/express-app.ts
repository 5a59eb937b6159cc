// The reference server on Express: the credit402 middleware in front of the demo routes, the handled route and the control routes.
import express5, { type Express } from 'express';
import { credit402Middleware } from '../adapters/express/express.ts';
import type { Gate } from '../gate/index.ts';
import { trustFunction } from '../adapters/client-address.ts';
import { credit402WebhookMiddleware } from '../adapters/express/express-webhook.ts';
import type { PaymentResponse } from '../protocol/types.ts';
import { CONTROL_BODY_LIMIT, RECORDS_PATH, STORE_FAULTS_PATH, type ConformanceControl } from '../conformance-control/conformance-control.ts';
import { demoAnswer, mountsHandledRoute, paramsOf, type AppOptions, type DemoRoute } from './demo-routes.ts';
import { expressErrorAnswers, expressErrorAnswersTo } from './error-answers.ts';
import { expressPath, takesBareWildcard } from './express-route-paths.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from '../conformance-control/handler-runs.ts';

/** The Express module: the installed `express` by default; a caller may pass another major (the self-test passes Express 4). */
export type ExpressModule = typeof express5;

/** Mounts the control routes; any body is read as text, which the control validates. */
export function mountControl(app: Express, control: ConformanceControl, express: ExpressModule): void {
  const text = express.text({ type: () => true, limit: CONTROL_BODY_LIMIT });
  for (const path of [STORE_FAULTS_PATH, RECORDS_PATH]) {
    app.all(path, text, (req, res, next) => {
      const body = typeof req.body === 'string' && req.body !== '' ? req.body : undefined;
      control.handle({ method: req.method, url: req.originalUrl, body }).then((answer) => {
        res.status(answer.status).set(answer.headers ?? {}).json(answer.body);
      }, next);
    });
  }
}

/**
 * A new Express app as both gatings build it: no `x-powered-by`, the client's address (`req.ip`, which the gate's rate
 * limit counts by) following the configured trustProxy, and routing exactly as the gate matches (spec CR-4.9): no case
 * folding, no trailing-slash tolerance.
 */
export function newExpressApp(express: ExpressModule, options: Pick<AppOptions, 'trustProxy'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustFunction(options.trustProxy));
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  return app;
}

/** What an Express app is built with besides the gate and its routes: {@link AppOptions} and the Express module. */
export interface ExpressAppOptions extends AppOptions {
  /** The Express module to build with (default: the installed `express`; the self-test passes Express 4). */
  express?: ExpressModule | undefined;
}

/**
 * Builds the Express app (not listening yet), with the webhook endpoint when `webhook` is given. The demo handlers
 * count their runs in `runs`, which `GET /_conformance/handled` reports (unless `options.handled` is false). With `control`, the conformance control
 * routes are mounted too (only for conformance runs: they inject store faults). `express` is the Express module to
 * build with (default: the installed `express`; `tooling/self-test/serve-express4.ts` passes Express 4).
 */
export function buildExpressApp(gate: Gate, routes: readonly DemoRoute[], options: ExpressAppOptions = {}): Express {
  const { webhook, runs = new HandlerRuns(), control, express = express5 } = options;
  const app = newExpressApp(express, options);
  app.use(credit402Middleware(gate));
  if (webhook) app.post(webhook.path, express.raw({ type: () => true, limit: '1mb' }), credit402WebhookMiddleware(webhook.handler));
  const bareWildcard = takesBareWildcard(express);
  for (const route of routes) {
    app.all(expressPath(route.path, bareWildcard), (req, res, next) => {
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      if (method !== route.method) return next();
      const answer = demoAnswer(route, runs, req.headers[REQUEST_ID_HEADER], res.locals.credit402 as PaymentResponse | undefined, route.segments === undefined ? undefined : paramsOf(route, Object.values(req.params)));
      // A new response's status is 200 already.
      if (answer.status !== 200) res.status(answer.status);
      res.json(answer.body);
    });
  }
  if (mountsHandledRoute(routes, options)) app.get(HANDLED_PATH, (req, res) => void res.json(runs.answer(req.originalUrl)));
  if (control) mountControl(app, control, express);
  app.use(options.log ? expressErrorAnswersTo(options.log) : expressErrorAnswers);
  return app;
}
