// The gateway: Fastify with the gate's plugin in front of any HTTP service; gated routes are paid for, everything else is forwarded untouched (undici's connection pool towards the upstream).
import { STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { withOptionalPackage } from '../config/optional-package.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { definedFields } from '../config/defined-fields.ts';
import { assertLiveKeysReachStripe } from '../config/live-keys.ts';
import { assertProductionSafe } from '../config/production-guards.ts';
import { trustFunction, validateTrustProxy } from '../adapters/client-address.ts';
import { credit402Fastify, credit402FrameworkErrors, credit402Settle } from '../adapters/fastify/fastify.ts';
import { createNearMisses, nearMissRefused, readRequestTarget, routerTarget, type Gate, type GatedRoute, type NearMisses } from '../gate/index.ts';
import { HEADERS } from '../protocol/constants.ts';
import type { Store } from '../stores/store.ts';
import type { ConformanceControl } from '../conformance-control/conformance-control.ts';
import { mountControlFastify } from '../adapters/fastify/fastify-control.ts';
import { routeMetricsEndpoint } from '../adapters/fastify/fastify-metrics.ts';
import { composeEngine, type EngineWebhook } from '../compose/engine.ts';
import { credit402WebhookFastify } from '../adapters/fastify/fastify-webhook.ts';
import { checkUpstreamMatching, upstreamLoosenesses, type GatewayConfig } from './gateway-config.ts';
import { createGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
import { connectionOptions, HOP_BY_HOP } from './hop-by-hop.ts';
import { createUpstreamForwarder, hasBody, type UpstreamAnswer, type UpstreamFailure } from './upstream-forward.ts';

/** A running gateway. */
export interface RunningGateway {
  url: string;
  gate: Gate;
  /** The store as it is (not behind the conformance store faults). */
  store: Store;
  /** URL of the metrics endpoint, when `metricsPath` is set. */
  metricsUrl?: string;
  /** Graceful shutdown: stops accepting, lets in-flight requests finish (up to `shutdownTimeoutMs`), closes the store. */
  close(): Promise<void>;
}

/** What a caller may hand the gateway instead of what the configuration names (tests). */
export interface GatewayInjections {
  store?: Store;
}

/** Request header fields never sent upstream as received: hop-by-hop ones, `Host` (the upstream's) and the proxy fields the gateway sets itself. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([...HOP_BY_HOP, 'host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']);

function gatewayError(reply: FastifyReply, status: 502 | 504): void {
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  void reply.code(status).type('application/json; charset=utf-8').send({ error: status === 504 ? 'Gateway Timeout' : 'Bad Gateway' });
}

/**
 * The header fields towards the upstream (name, value, …): the client's end-to-end fields (hop-by-hop ones and those
 * its `Connection` names dropped, `Expect` answered here), `payment` stripped unless configured, and `X-Forwarded-*`
 * set. `Host` is the upstream's, set by the forwarder, and the body is framed as it came (its `content-length`, else
 * chunked).
 */
function upstreamHeaders(config: GatewayConfig, request: FastifyRequest): string[] {
  const headers = request.headers;
  const named = connectionOptions(headers.connection);
  const out: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || NOT_FORWARDED.has(name) || named?.has(name) === true) continue;
    if (name === HEADERS.PAYMENT && !config.forwardPaymentHeader) continue;
    if (typeof value === 'string') out.push(name, value);
    // A field node:http keeps as a list (`set-cookie`): one line each, as received.
    else for (const item of value) out.push(name, item);
  }
  const prior = headers['x-forwarded-for'];
  // The hop the gateway saw (not `request.ip`, which is the client a trusted proxy named).
  const peer = request.raw.socket.remoteAddress ?? request.ip;
  out.push('x-forwarded-for', typeof prior === 'string' && prior !== '' ? `${prior}, ${peer}` : peer, 'x-forwarded-proto', request.protocol);
  if (headers.host !== undefined) out.push('x-forwarded-host', headers.host);
  return out;
}

/**
 * The request target sent upstream: a paid request's path as the gate matched it and its query (CR-15.1: the
 * upstream's router reaches the route that was paid for); any other one as received, an absolute-form target in
 * origin-form (its path and query as received: RFC 9112 §3.2.1, a client talking to an origin server sends origin-form).
 */
function upstreamTarget(url: string, paid: boolean): string {
  if (paid) return routerTarget(url) ?? url;
  if (url.startsWith('/') || url === '*') return url;
  // An http(s) absolute form with a host (the gate refused every other form): what follows its authority.
  const afterScheme = url.indexOf('://') + 3;
  const rest = url.slice(afterScheme).search(/[/?]/);
  if (rest === -1) return '/';
  const pathAndQuery = url.slice(afterScheme + rest);
  return pathAndQuery.startsWith('?') ? `/${pathAndQuery}` : pathAndQuery;
}

/**
 * Answers a free request whose path the upstream's router could read as a gated route (a near-miss, CR-15.5) with the
 * gate's 404, and says so; false for any other request, which goes on to the upstream. Called for free requests only:
 * a paid one never pays for this look-up.
 */
function refusedAsNearMiss(nearMisses: NearMisses<GatedRoute>, request: FastifyRequest, reply: FastifyReply): boolean {
  const reading = readRequestTarget(request.url);
  const route = reading.ok ? nearMisses.routeNear(request.method, reading.path) : undefined;
  if (route === undefined) return false;
  const answer = nearMissRefused(route);
  // The body was not read: the connection cannot carry another request.
  if (!request.raw.complete) reply.header('connection', 'close');
  void reply.code(answer.status).headers(answer.headers).send(answer.body);
  return true;
}

/** The gateway's answer to an error Fastify raised in the proxy (the body stream failed, …): its 4xx status, else 500; never its message. */
function proxyErrorAnswer(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  void reply.code(status).type('application/json; charset=utf-8').send({ error: STATUS_CODES[status] ?? 'Error' });
}

/** No answer of the upstream reached the gateway: 502 or 504, and a paid request's price back, exactly once (CR-15.3). */
function upstreamFailed(request: FastifyRequest, reply: FastifyReply, failure: UpstreamFailure | undefined, metrics: GatewayMetrics | undefined): void {
  const status = failure?.timedOut === true ? 504 : 502;
  metrics?.upstreamFailed(status);
  // The deduction is given back: the answer no longer carries its payment-response.
  reply.removeHeader(HEADERS.PAYMENT_RESPONSE);
  void credit402Settle(request, { status, upstreamFailed: true }).finally(() => gatewayError(reply, status));
}

/** Drops an answer's body that will not be sent: a stream is destroyed (its upstream request with it). */
function dropBody(answer: UpstreamAnswer | undefined): void {
  if (answer !== undefined && !Buffer.isBuffer(answer.body)) answer.body.destroy();
}

/**
 * Sends the upstream's answer: its status, its end-to-end headers (hop-by-hop ones dropped; the gate's headers of a
 * paid request, set by the plugin, win over the upstream's of the same name) and its body, in one write when it came
 * whole (Fastify sets its `content-length`), else streamed. False, with the body dropped, when its status is one
 * Fastify cannot send (not 100–599): the upstream's answer is invalid.
 */
function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: UpstreamAnswer): boolean {
  try {
    reply.code(answer.status);
  } catch {
    dropBody(answer);
    return false;
  }
  const headers = answer.headers;
  // Hop-by-hop fields, and those the answer's `Connection` names, are the upstream connection's: never passed on.
  const named = connectionOptions(headers.connection);
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || named?.has(name) === true || reply.hasHeader(name)) continue;
    reply.header(name, value);
  }
  // An HTTP/1.1 connection whose request body was not read to its end cannot carry another request.
  if (!request.raw.complete) reply.header('connection', 'close');
  const body = answer.body;
  if (!Buffer.isBuffer(body)) void reply.send(body);
  else if (body.length === 0) void reply.send();
  // Fastify gives a Buffer without a content-type one of its own: a body the upstream sent without one goes as a stream.
  else void reply.send(headers['content-type'] === undefined ? Readable.from([body]) : body);
  return true;
}

/**
 * Builds the gateway's Fastify app (not listening). Every request but the health endpoint (and the metrics and
 * control routes, when configured) goes through the gate: an ambiguous target is answered 400 (CR-4.10) and never
 * forwarded; a challenge or payment error is answered by the gate; a free request is forwarded as received (an
 * absolute-form target in origin-form); a paid request is forwarded with the path the gate matched and the query
 * (CR-4.9), so the upstream's router reads what the gate priced; a free request whose path the upstream's router could
 * read as a gated route under `upstreamMatching` (a near-miss: `/API/weather/` for `GET /api/weather`) is answered 404
 * and never forwarded (CR-15.5). Hop-by-hop headers are dropped both ways. The gate
 * runs through the library's Fastify plugin, registered in the proxy's scope: the paid decision is made once Fastify
 * has handed the body over (preHandler), so what Fastify refuses before the upstream is not charged (CR-4.7). The
 * upstream failing (502) or timing out (504), or the gateway failing to send the request, settles a paid request as
 * an upstream failure (`credit402Settle`), which gives its price back (CR-15.3); an upstream 5xx follows
 * `refundOnHandlerError`. With `metrics` (whose
 * hooks the gate feeds), the gateway answers its path itself, never gated or forwarded, behind the bearer token
 * `metricsToken` when it is set, and counts the upstream failures.
 */
export async function buildGatewayApp(
  config: GatewayConfig,
  gate: Gate,
  control?: ConformanceControl,
  webhook?: EngineWebhook,
  metrics?: GatewayMetrics,
): Promise<FastifyInstance> {
  const { default: Fastify } = await withOptionalPackage('fastify', 'the gateway', () => import('fastify'));
  const app = Fastify({
    logger: false,
    // A target Fastify's router cannot read: the gate's 400 when ambiguous (CR-4.10), else the error handler's answer.
    frameworkErrors: credit402FrameworkErrors,
    return503OnClosing: false,
    // The client's address (`request.ip`, which the gate's rate limit counts by): behind trusted proxies, the one they name.
    trustProxy: trustFunction(config.trustProxy),
  });
  // Errors Fastify raises (a body stream that failed, a target its router cannot read) are answered without their message.
  app.setErrorHandler(proxyErrorAnswer);
  // The near-misses of the gate's table under the upstream's matching, computed once (a configuration built in code is checked here).
  const nearMisses = createNearMisses(gate.routes.values(), upstreamLoosenesses(checkUpstreamMatching(config.upstreamMatching)));
  const forwarder = createUpstreamForwarder(config.upstream, config.upstreamTimeoutMs);
  app.addHook('onClose', () => forwarder.close());
  // Says the gateway is up, and nothing about what it is in front of.
  app.get(config.healthPath, async () => ({ status: 'ok' }));
  // Like the health endpoint, outside the proxy's scope: its gate hook never sees it (GET/HEAD; 405 for the rest).
  if (metrics) {
    // Behind the bearer token `metricsToken` when it is set (401 without it), as the reference server's endpoint.
    await app.register(async (scope) => routeMetricsEndpoint(scope, { ...metrics, token: metrics.token ?? config.metricsToken }));
  }
  if (control) await mountControlFastify(app, control);
  // The webhook endpoint is the gateway's own (it settles the store): never gated, never forwarded (CR-14.2).
  if (webhook) await app.register(credit402WebhookFastify, webhook);
  await app.register(async (proxy) => {
    // Bodies are streamed to the upstream as they arrive, whatever their type: nothing is parsed.
    proxy.removeAllContentTypeParsers();
    proxy.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // The gate through the Fastify plugin, in this scope only (health, metrics, control and webhook routes are outside
    // it): ambiguous targets refused on arrival, the paid decision once Fastify has handed the body over.
    await proxy.register(credit402Fastify, { gate });
    proxy.all('/*', (request, reply) => {
      const paid = request.credit402 !== undefined;
      if (!paid && nearMisses !== undefined && refusedAsNearMiss(nearMisses, request, reply)) return;
      let clientGone = false;
      const call = forwarder.send({
        method: request.method,
        target: upstreamTarget(request.url, paid),
        headers: upstreamHeaders(config, request),
        body: hasBody(request.headers) ? request.raw : undefined,
      }, (failure, answer) => {
        // The client went away before the answer: nothing to send, and the upstream did not fail (the price stays).
        if (clientGone || reply.raw.destroyed) {
          dropBody(answer);
          return;
        }
        if (answer === undefined || !sendAnswer(request, reply, answer)) upstreamFailed(request, reply, failure, metrics);
      });
      reply.raw.on('close', () => {
        if (reply.raw.writableFinished || reply.raw.headersSent) return;
        clientGone = true;
        call.destroy();
      });
    });
  });
  return app;
}

/**
 * Starts the gateway described by `config` (Stripe API: an API URL or Stripe itself; the gateway embeds no emulator).
 * With `stripeWebhookSecret`, the gateway answers the webhook endpoint itself (robustness profile, spec §14); with
 * `metricsPath`, its Prometheus metrics (needs prom-client: ERR_MISSING_PACKAGE before anything starts). As
 * `loadGatewayConfig` does, and before anything starts (a configuration built in code skips the loader): live
 * keys start only against Stripe, never with a public serverSecret (ERR_SERVER_SECRET), and `conformanceControl` is
 * refused with live keys or Stripe itself (ERR_CONFORMANCE_CONTROL).
 */
export async function startGateway(config: GatewayConfig, injected: GatewayInjections = {}): Promise<RunningGateway> {
  assertLiveKeysReachStripe(config);
  assertProductionSafe(config);
  validateTrustProxy(config.trustProxy);
  if (config.stripeApi === 'embedded') {
    throw new Credit402ConfigError('ERR_GATEWAY_CONFIG', 'the gateway needs a Stripe API: set stripeApi to "stripe" (STRIPE_SECRET_KEY) or the URL of an emulator (--stripe-api http://127.0.0.1:12111)');
  }
  const metrics = config.metricsPath === undefined ? undefined : await createGatewayMetrics(config.metricsPath);
  const engine = await composeEngine(config, {
    ...definedFields({ store: injected.store, hooks: metrics?.hooks }),
    configErrorCode: 'ERR_GATEWAY_CONFIG',
  });
  try {
    const { gate, control, webhook } = engine;
    const app = await buildGatewayApp(config, gate, control, webhook, metrics);
    await app.listen({ host: config.host, port: config.port });
    const { port } = app.server.address() as AddressInfo;
    let closing: Promise<void> | undefined;
    const url = `http://${config.host}:${port}`;
    return {
      url,
      gate,
      store: engine.store,
      ...(metrics ? { metricsUrl: `${url}${metrics.path}` } : {}),
      close: () => {
        closing ??= (async () => {
          // Stops accepting, closes idle keep-alive connections, waits for the requests under way; then forces the rest.
          const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
          // A keep-alive connection whose request just finished is idle: close it rather than wait for the client to.
          const idle = setInterval(() => app.server.closeIdleConnections(), 50);
          try {
            await app.close();
          } finally {
            clearTimeout(force);
            clearInterval(idle);
          }
          await engine.close(config.shutdownTimeoutMs);
        })();
        return closing;
      },
    };
  } catch (error) {
    await engine.close(0);
    throw error;
  }
}