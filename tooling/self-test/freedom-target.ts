// A target that takes the most lenient option at every latitude the wire level grants (spec Appendix C): the reference gate behind its own reading of requests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGate, type GatedRoute, type ServeOutcome } from 'credit402/gate';
import type { PaymentResponse, RouteConfig } from 'credit402/protocol';
import type { ServerConfig } from 'credit402/server';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from 'credit402/internal/conformance-control/handler-runs';
import { stripeApiBase } from 'credit402/stripe';
import { demoAnswer, demoRoutes, type DemoRoute } from 'credit402/internal/server/demo-routes';
import { MemoryStore } from 'credit402/stores';
import { decideFreedom } from './freedom-gate.ts';
import { freedomProcessor } from './freedom-processor.ts';
import { looseRoute } from './freedom-router.ts';
import { oneBalance } from './one-balance.ts';

/** The latitudes of Appendix C that a conformance run sees and this target takes, each with how it takes it. */
export const EXERCISED = {
  'L-1': 'an empty payment value is no header: the plain challenge (freedom-payload.ts, paymentValue)',
  'L-2': 'every = is ignored wherever it stands (freedom-payload.ts, decodeLeniently)',
  'L-3': 'only the standard alphabet is base64: - and _ make a value malformed (freedom-payload.ts, decodeLeniently)',
  'L-4': 'bytes that are not UTF-8 become U+FFFD and the text is read as JSON (freedom-payload.ts, decodeLeniently)',
  'L-5': 'of several payment field lines the first is used alone (freedom-payload.ts, paymentValue)',
  'L-6': 'payment-required and payment-response are URL-safe base64 without padding, a space after every 76 characters (freedom-answers.ts)',
  'L-7': 'a JSON value that is not an object gets the plain challenge (freedom-payload.ts, readPayload)',
  'L-8': 'a clientId, paymentMethodId or topUpAmount of another type or value gets the plain challenge (freedom-payload.ts, readPayload)',
  'L-9': 'a topUpAmount of 0 or below is answered top_up_below_minimum on the new-payment path (freedom-gate.ts)',
  'L-10': 'stripe402Version is never read (freedom-payload.ts, readPayload)',
  'L-11': 'requestId is never read: every request is a new deduction (freedom-payload.ts, readPayload)',
  'L-12': 'a payload with neither clientId nor paymentMethodId is answered invalid_payment (freedom-gate.ts)',
  'L-13': 'the gate compares the request path as received, percent-encodings and all (sourcePath)',
  'L-14': 'HEAD is gated only by a HEAD key, and the router runs the GET handler for it (freedom-router.ts)',
  'L-15': 'the router folds case, drops empty and dot segments, reads \\ as / and decodes every percent-encoding (freedom-router.ts)',
  'L-16': 'no request target is refused as ambiguous: the gate reads the path up to ? or # (sourcePath)',
  'L-17': 'route keys are exact: GET /api/users/:id gates only the path /api/users/:id (gatedRoute)',
  'L-18': 'the price is given back when the handler answers 5xx or throws (refundOnHandlerError)',
  'L-19': 'challenges carry no description members (freedom-answers.ts, bareChallenge)',
  'L-20': 'the insufficient-credits challenge carries no message (freedom-answers.ts, bareChallenge)',
  'L-21': 'one balance per client for every currency (one-balance.ts)',
  'L-22': 'no route has a maxTopUp of its own, and a top-up above the ceiling is sent to the processor, which refuses it (withoutMaxTopUp, freedom-gate.ts, freedom-processor.ts)',
  'L-23': 'a PaymentMethod without fingerprint, or unknown, is payment_failed with the processor\'s or the target\'s own message (freedom-processor.ts)',
  'L-24': 'any other processor error is payment_failed with the processor\'s message (freedom-processor.ts)',
  'L-25': 'no answer from the processor is payment_failed with the SDK\'s message (freedom-processor.ts)',
  'L-26': 'any paymentMethodId string reaches the processor (freedom-gate.ts stand-in, freedom-processor.ts)',
  'L-27': 'PaymentIntents carry no metadata and only the SDK\'s random idempotency key (freedom-processor.ts)',
  'L-28': 'customers are created with only the SDK\'s random idempotency key (freedom-processor.ts)',
  'L-29': 'the step-11 race is answered with the plain challenge (freedom-gate.ts)',
  'L-46': 'the service name stripe402 and the metadata key stripe402_client_id, declared to the kit',
  'L-47': 'the customer search quotes with " (freedom-processor.ts)',
  'L-48': 'its own wording for the messages it writes (freedom-gate.ts)',
  'L-49': 'the plain challenge is its 402 that fails closed on a payload it cannot use (freedom-payload.ts)',
  'L-50': 'a handler that throws is answered 500 without payment-response (answerHandler)',
  'L-51': 'no framework refuses a request before the handler: every request the gate serves reaches its handler (serveGated)',
} as const;

/** The service name the target uses, whatever the profile says, and declares to the kit (L-46). */
export const FREEDOM_SERVICE_NAME = 'stripe402';
/** The customer metadata key the target uses, whatever the profile says, and declares to the kit (L-46). */
export const FREEDOM_METADATA_KEY = 'stripe402_client_id';

/** A running freedom target. */
export interface RunningFreedom {
  url: string;
  close(): Promise<void>;
}

/**
 * The request path the gate compares, as received (L-13, L-16): the target up to its first `?` or `#`, an absolute-form
 * `http(s)` target by its path (CR-4.2); undefined for a target without a path (`*`, another form).
 */
export function sourcePath(target: string): string | undefined {
  const authority = /^https?:\/\/[^/?#]*/i.exec(target)?.[0];
  const path = target.slice(authority?.length ?? 0).split(/[?#]/, 1)[0] ?? '';
  if (path.startsWith('/')) return path;
  return authority !== undefined && path === '' ? '/' : undefined;
}

/** The `payment` field lines of a request, as received. */
function paymentLines(request: IncomingMessage): string[] {
  const lines: string[] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    if (request.rawHeaders[index]?.toLowerCase() === 'payment') lines.push(request.rawHeaders[index + 1] ?? '');
  }
  return lines;
}

function sendJson(response: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

/**
 * Runs a demo handler and answers with what it returns; a handler that throws is answered 500 without the
 * `payment-response` of its deduction (L-50). Returns how it ended, for the gate's settlement.
 */
function answerHandler(
  response: ServerResponse,
  route: DemoRoute,
  runs: HandlerRuns,
  request: IncomingMessage,
  paid: { headers: Readonly<Record<string, string>>; payment?: PaymentResponse; params?: Record<string, string> },
): ServeOutcome {
  try {
    const answer = demoAnswer(route, runs, request.headers[REQUEST_ID_HEADER], paid.payment, paid.params);
    sendJson(response, answer.status, paid.headers, answer.body);
    return { status: answer.status };
  } catch {
    sendJson(response, 500, {}, { error: 'Internal Server Error' });
    return { threw: true };
  }
}

/**
 * The routes without a `maxTopUp` of their own (L-40): the gate's ceiling is then the processor's largest charge, and a
 * top-up above it, handed on to the processor (L-22), is refused there.
 */
function withoutMaxTopUp(routes: Readonly<Record<string, RouteConfig>>): Record<string, RouteConfig> {
  return Object.fromEntries(Object.entries(routes).map(([key, { maxTopUp: _maxTopUp, ...route }]) => [key, route]));
}

/** Starts the target on `config.host:config.port` with a memory store keeping one balance per client, talking to the Stripe API at `config.stripeApi`. */
export async function startFreedom(config: ServerConfig): Promise<RunningFreedom> {
  const store = oneBalance(new MemoryStore());
  const gate = createGate({
    stripePublishableKey: config.stripePublishableKey,
    serverSecret: config.serverSecret,
    store,
    routes: withoutMaxTopUp(config.routes),
    processor: freedomProcessor({ secretKey: config.stripeSecretKey, api: stripeApiBase(config.stripeApi), customerMetadataKey: FREEDOM_METADATA_KEY }),
    serviceName: FREEDOM_SERVICE_NAME,
    refundOnHandlerError: true,
    newPaymentRateLimit: false,
  });
  const routes = demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers);
  const byKey = new Map(routes.map((route) => [route.key, route]));
  const runs = new HandlerRuns();

  /** A gated request: the freedom decision; a paid one reaches the handler of the key it paid for (L-51). */
  async function serveGated(request: IncomingMessage, response: ServerResponse, route: GatedRoute, method: string, path: string): Promise<void> {
    const decision = await decideFreedom(gate, route, method, path, paymentLines(request));
    if (decision.action === 'respond') return sendJson(response, decision.status, decision.headers, decision.body);
    const demo = byKey.get(route.key);
    if (decision.action === 'pass' || demo === undefined) return sendJson(response, 404, {}, { error: 'Not Found' });
    const outcome = answerHandler(response, demo, runs, request, { headers: decision.headers, payment: decision.payment });
    await decision.settle(outcome);
  }

  /** A free request: the loose router (L-14, L-15), the handled route of the conformance profile. */
  function serveFree(request: IncomingMessage, response: ServerResponse, method: string, target: string): void {
    const found = method === 'GET' && target.split('?')[0] === HANDLED_PATH ? 'handled' : looseRoute(routes, method, sourcePath(target) ?? target);
    if (found === 'handled') sendJson(response, 200, {}, runs.answer(target));
    else if (found === 'bad') sendJson(response, 400, {}, { error: 'Bad Request' });
    else if (found === undefined) sendJson(response, 404, {}, { error: 'Not Found' });
    else answerHandler(response, found.route, runs, request, { headers: {}, params: found.params });
  }

  const server = createServer((request, response) => {
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    const path = sourcePath(target);
    // L-17: the key named exactly, patterns included; L-14: HEAD has no key of its own.
    const route = path === undefined ? undefined : gate.routes.get(`${method} ${path}`);
    if (route === undefined || path === undefined) return serveFree(request, response, method, target);
    serveGated(request, response, route, method, path).catch(() => {
      if (!response.headersSent) sendJson(response, 402, {}, { error: 'Request failed' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => store.close());
  return { url: `http://${config.host}:${port}`, close };
}
