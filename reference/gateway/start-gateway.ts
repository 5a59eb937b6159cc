// The gateway: Fastify with the gate in front of any HTTP service; gated routes are paid for, everything else is forwarded untouched (@fastify/reply-from on undici).
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { withOptionalPackage } from '../config/optional-package.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { assertLiveKeysReachStripe } from '../config/live-keys.ts';
import { createCredit402, createCredit402Webhooks } from '../credit402.ts';
import type { ServeDecision } from '../gate/decision.ts';
import type { Gate } from '../gate/gate.ts';
import { ambiguousTarget, readRequestTarget, routerTarget } from '../gate/request-target.ts';
import type { Store } from '../stores/store.ts';
import { buildStore } from '../server/build-store.ts';
import { ConformanceControl, controlPathTaken } from '../server/conformance-control.ts';
import { mountControlFastify } from '../server/fastify-control.ts';
import { trackInFlight } from '../server/in-flight.ts';
import { routeMetricsEndpoint } from '../server/metrics-endpoint.ts';
import { apiBase, gateOptions, scheduledReconcile } from '../server/start-server.ts';
import { StoreFaults, withStoreFaults } from '../server/store-faults.ts';
import { credit402WebhookFastify } from '../webhooks/fastify-webhook.ts';
import { DEFAULT_WEBHOOK_PATH } from '../webhooks/webhook-handler.ts';
import type { WebhookEndpoint } from '../server/demo-routes.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { createGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';

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

/** Hop-by-hop and proxy headers the gateway sets itself. */
const FORWARDED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

/** The paid request's gate decision, kept until its answer is finished. */
const served = new WeakMap<FastifyRequest, ServeDecision>();

/** Whether a reply-from error is the upstream taking too long (answered 504), rather than failing (502). */
function isTimeout(error: unknown): boolean {
  const { code, statusCode } = (error ?? {}) as { code?: string; statusCode?: number };
  return statusCode === 504 || code === 'FST_REPLY_FROM_GATEWAY_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

function gatewayError(reply: FastifyReply, status: 502 | 504): void {
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  void reply.code(status).type('application/json; charset=utf-8').send({ error: status === 504 ? 'Gateway Timeout' : 'Bad Gateway' });
}

/** The headers towards the upstream: `payment` stripped unless configured, `X-Forwarded-*` set. */
function upstreamHeaders(config: GatewayConfig, request: FastifyRequest, headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const out = { ...headers };
  if (!config.forwardPaymentHeader) delete out.payment;
  for (const name of FORWARDED) delete out[name];
  const prior = request.headers['x-forwarded-for'];
  const chain = typeof prior === 'string' && prior !== '' ? `${prior}, ${request.ip}` : request.ip;
  out['x-forwarded-for'] = chain;
  out['x-forwarded-proto'] = request.protocol;
  if (request.headers.host !== undefined) out['x-forwarded-host'] = request.headers.host;
  return out;
}

/**
 * Builds the gateway's Fastify app (not listening). Every request but the health endpoint (and the control routes,
 * with `control`) goes through the gate: an ambiguous target is answered 400 (CR-4.10) and never forwarded; a
 * challenge or payment error is answered by the gate; a free request is forwarded as received; a paid request is
 * forwarded with the path the gate matched and the query (CR-4.9), so the upstream's router reads what the gate
 * priced. The upstream failing (502) or timing out (504) gives a paid request's price back (CR-15.3); an upstream
 * 5xx follows `refundOnHandlerError`. With `metrics` (whose hooks the gate feeds), the gateway answers its path
 * itself, never gated or forwarded, and counts the upstream failures.
 */
export async function buildGatewayApp(
  config: GatewayConfig,
  gate: Gate,
  control?: ConformanceControl,
  webhook?: WebhookEndpoint,
  metrics?: GatewayMetrics,
): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: replyFrom }] = await Promise.all([
    withOptionalPackage('fastify', 'the gateway', () => import('fastify')),
    withOptionalPackage('@fastify/reply-from', 'the gateway', () => import('@fastify/reply-from')),
  ]);
  const app = Fastify({
    logger: false,
    // A target Fastify's router cannot read is answered here: 400 when ambiguous (CR-4.10).
    frameworkErrors: (_error, request, reply) => {
      const reading = readRequestTarget(request.url);
      const answer = reading.ok ? { status: 400, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { error: 'Bad Request' } } : ambiguousTarget(reading.reason);
      void (reply as FastifyReply).code(answer.status).headers(answer.headers).send(answer.body);
    },
    return503OnClosing: false,
  });
  app.get(config.healthPath, async () => ({ status: 'ok', upstream: config.upstream }));
  // Like the health endpoint, outside the proxy's scope: its gate hook never sees it (GET/HEAD; 405 for the rest).
  if (metrics) routeMetricsEndpoint(app, metrics);
  if (control) await mountControlFastify(app, control);
  // The webhook endpoint is the gateway's own (it settles the store): never gated, never forwarded (CR-14.2).
  if (webhook) await app.register(credit402WebhookFastify, webhook);
  await app.register(async (proxy) => {
    // Bodies are streamed to the upstream as they arrive, whatever their type.
    proxy.removeAllContentTypeParsers();
    proxy.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    await proxy.register(replyFrom, {
      base: config.upstream,
      undici: { headersTimeout: config.upstreamTimeoutMs, bodyTimeout: config.upstreamTimeoutMs, connectTimeout: config.upstreamTimeoutMs },
      retryMethods: [],
      maxRetriesOn503: 0,
      disableRequestLogging: true,
    });
    proxy.addHook('onRequest', async (request, reply) => {
      const reading = readRequestTarget(request.url);
      if (!reading.ok) {
        const answer = ambiguousTarget(reading.reason);
        return reply.code(answer.status).headers(answer.headers).send(answer.body);
      }
      const decision = await gate.handle({ method: request.method, url: request.url, paymentHeader: request.headers.payment, clientAddress: request.ip, origin: request.headers.origin });
      if (decision.action === 'respond') return reply.code(decision.status).headers(decision.headers).send(decision.body);
      if (decision.action === 'serve') served.set(request, decision);
      return undefined;
    });
    proxy.addHook('onResponse', async (request, reply) => {
      const decision = served.get(request);
      served.delete(request);
      await decision?.settle({ status: reply.statusCode });
    });
    proxy.all('/*', (request, reply) => {
      const decision = served.get(request);
      const target = decision === undefined ? request.url : (routerTarget(request.url) ?? request.url);
      reply.from(target, {
        retriesCount: 0,
        rewriteRequestHeaders: (_request, headers) => upstreamHeaders(config, request, headers) as typeof headers,
        rewriteHeaders: (headers) => (decision === undefined ? headers : { ...headers, ...decision.headers }),
        onError: (errorReply, { error }) => {
          const status = isTimeout(error) ? 504 : 502;
          metrics?.upstreamFailed(status);
          // The upstream never answered: the paid request's price goes back, exactly once (CR-15.3).
          served.delete(request);
          const settled = decision?.settle({ status, upstreamFailed: true });
          if (settled) settled.finally(() => gatewayError(errorReply as FastifyReply, status));
          else gatewayError(errorReply as FastifyReply, status);
        },
      });
    });
  });
  return app;
}

/**
 * Starts the gateway described by `config` (Stripe API: an API URL or Stripe itself; the gateway embeds no emulator).
 * With `stripeWebhookSecret`, the gateway answers the webhook endpoint itself (robustness profile, spec §14); with
 * `metricsPath`, its Prometheus metrics (needs prom-client: ERR_MISSING_PACKAGE before anything starts).
 */
export async function startGateway(config: GatewayConfig, injected: GatewayInjections = {}): Promise<RunningGateway> {
  assertLiveKeysReachStripe(config);
  if (config.stripeApi === 'embedded') {
    throw new Credit402ConfigError('ERR_GATEWAY_CONFIG', 'the gateway needs a Stripe API: set stripeApi to "stripe" (STRIPE_SECRET_KEY) or the URL of an emulator (--stripe-api http://127.0.0.1:12111)');
  }
  const metrics = config.metricsPath === undefined ? undefined : await createGatewayMetrics(config.metricsPath);
  const store = injected.store ?? (await buildStore(config.store));
  try {
    const taken = config.conformanceControl ? controlPathTaken(Object.keys(config.routes)) : undefined;
    if (taken) throw new Credit402ConfigError('ERR_GATEWAY_CONFIG', `conformanceControl: a configured route already uses the control path ${taken}`);
    const storeFaults = config.conformanceControl ? new StoreFaults() : undefined;
    const engineStore = storeFaults ? withStoreFaults(store, storeFaults) : store;
    const control = storeFaults ? new ConformanceControl(store, storeFaults) : undefined;
    const stripeApi = config.stripeApi === 'stripe' ? {} : { stripeApi: apiBase(config.stripeApi) };
    const { gate, drain } = trackInFlight(createCredit402({ ...gateOptions(config, engineStore, stripeApi), ...(metrics ? { hooks: metrics.hooks } : {}) }));
    const webhook = config.stripeWebhookSecret === undefined ? undefined : {
      path: config.webhookPath ?? DEFAULT_WEBHOOK_PATH,
      handler: createCredit402Webhooks({
        stripeSecretKey: config.stripeSecretKey,
        stripeWebhookSecret: config.stripeWebhookSecret,
        store: engineStore,
        ...(config.stripeTimeoutMs ? { stripeTimeoutMs: config.stripeTimeoutMs } : {}),
        ...stripeApi,
      }),
    };
    const app = await buildGatewayApp(config, gate, control, webhook, metrics);
    await app.listen({ host: config.host, port: config.port });
    const { port } = app.server.address() as AddressInfo;
    // As the reference server: credits succeeded top-ups no webhook reached (every 5 minutes against Stripe, off with an API URL).
    const reconciler = scheduledReconcile(config, engineStore, stripeApi);
    let closing: Promise<void> | undefined;
    const url = `http://${config.host}:${port}`;
    return {
      url,
      gate,
      store,
      ...(metrics ? { metricsUrl: `${url}${metrics.path}` } : {}),
      close: () => {
        closing ??= (async () => {
          await reconciler?.stop();
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
          await drain(config.shutdownTimeoutMs);
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
