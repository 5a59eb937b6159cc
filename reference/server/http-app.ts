// The reference server on plain node:http: the credit402 node:http adapter in front of a tiny router that matches as the gate does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { applyCredit402, createClientAddressReader, type GateIncomingMessage } from '../adapters/node-http/node-http.ts';
import { createRouteTable, type Gate, routePatternParams, type RouteTable } from '../gate/index.ts';
import type { PaymentResponse } from '../protocol/types.ts';
import { credit402WebhookMiddleware } from '../adapters/express/express-webhook.ts';
import { CONTROL_BODY_LIMIT, RECORDS_PATH, STORE_FAULTS_PATH, type ConformanceControl } from '../conformance-control/conformance-control.ts';
import { demoAnswer, mountsHandledRoute, type AppOptions, type DemoRoute, type WebhookEndpoint } from './demo-routes.ts';
import { errorBody, expressErrorAnswers, expressErrorAnswersTo } from './error-answers.ts';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from '../conformance-control/handler-runs.ts';
import { withMetricsEndpoint } from '../adapters/node-http/node-http-metrics.ts';
import type { MetricsEndpoint } from '../metrics/metrics-endpoint.ts';
import { routerPath } from '../adapters/router-path.ts';

const WEBHOOK_BODY_LIMIT = 1024 * 1024;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** The request body, or undefined when it is larger than `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

type Extras = {
  webhook: WebhookEndpoint | undefined;
  runs: HandlerRuns;
  control: ConformanceControl | undefined;
  table: RouteTable<DemoRoute>;
  /** Whether the handled route is mounted. */
  handled: boolean;
  fail: typeof expressErrorAnswers;
};

/** Routes one request the gate let through; `payment` is set when it was paid. */
async function route(req: GateIncomingMessage, res: ServerResponse, extras: Extras, payment: PaymentResponse | undefined): Promise<void> {
  const method = req.method ?? '';
  const path = routerPath(req.url ?? '/');
  // The demo routes match as the gate does (exact, patterns most specific first, HEAD following GET), path as received.
  const demo = path === undefined ? undefined : extras.table.match(method, path);
  if (demo && path !== undefined) {
    const params = demo.segments === undefined ? undefined : routePatternParams(demo.segments, path);
    const answer = demoAnswer(demo, extras.runs, req.headers[REQUEST_ID_HEADER], payment, params);
    return json(res, answer.status, answer.body);
  }
  if (extras.webhook && method === 'POST' && path === extras.webhook.path) {
    const body = await readBody(req, WEBHOOK_BODY_LIMIT);
    if (body === undefined) return json(res, 413, errorBody(413));
    return credit402WebhookMiddleware(extras.webhook.handler)(Object.assign(req, { body }), res, (error) => extras.fail(error, req, res, () => {}));
  }
  if ((method === 'GET' || method === 'HEAD') && path === HANDLED_PATH && extras.handled) {
    return json(res, 200, extras.runs.answer(req.originalUrl ?? req.url ?? '/'));
  }
  if (extras.control && (path === STORE_FAULTS_PATH || path === RECORDS_PATH)) {
    const raw = await readBody(req, CONTROL_BODY_LIMIT);
    if (raw === undefined) return json(res, 413, errorBody(413));
    const body = raw.length === 0 ? undefined : raw.toString('utf8');
    const answer = await extras.control.handle({ method, url: req.originalUrl ?? req.url ?? '/', body });
    return json(res, answer.status, answer.body, answer.headers);
  }
  json(res, 404, errorBody(404));
}

/** What the node:http server is built with besides the gate and its routes: {@link AppOptions} and the metrics. */
export interface HttpAppOptions extends AppOptions {
  /** The metrics endpoint, answered by the server itself (never gated). */
  metrics?: MetricsEndpoint | undefined;
}

/**
 * Builds the node:http server (not listening yet), with the webhook endpoint when `webhook` is given. The demo
 * handlers count their runs in `runs`, which `GET /_conformance/handled` reports (unless `options.handled` is false). With `control`, the conformance
 * control routes are mounted too (only for conformance runs: they inject store faults).
 */
export function buildHttpServer(gate: Gate, routes: readonly DemoRoute[], options: HttpAppOptions = {}): Server {
  const { webhook, runs = new HandlerRuns(), control, metrics } = options;
  const fail = options.log ? expressErrorAnswersTo(options.log) : expressErrorAnswers;
  const extras: Extras = { webhook, runs, control, table: createRouteTable(routes), handled: mountsHandledRoute(routes, options), fail };
  const clientAddress = createClientAddressReader(options.trustProxy);
  return createServer(withMetricsEndpoint(metrics, (req: GateIncomingMessage, res) => {
    applyCredit402(gate, req, res, { clientAddress: clientAddress(req) })
      .then((applied) => (applied.answered ? undefined : route(req, res, extras, applied.payment)))
      .catch((error: unknown) => fail(error, req, res, () => {}));
  }));
}
