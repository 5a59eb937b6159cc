// A target that follows the stripe402 source and takes every point it leaves open differently from credit402: the reference gate, wrapped.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { credit402Fastify } from 'credit402/fastify';
import type { Gate, GateDecision, GateRequest } from 'credit402/gate';
import type { Processor } from 'credit402';
import { decodeBase64Json, encodeBase64Json, HEADERS, type PaymentRequiredResponse } from 'credit402/protocol';
import { demoAnswer, demoRoutes, fastifyPath, mountsHandledRoute } from 'credit402/internal/server/demo-routes';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from 'credit402/internal/conformance-control/handler-runs';
import type { ServerConfig } from 'credit402/server';
import { profileGate } from './profile-gate.ts';

/** The service-defined values of this target (the stripe402 deployment's), whatever the profile says. */
const SOURCE_SERVICE_NAME = 'stripe402';
const SOURCE_METADATA_KEY = 'stripe402_client_id';

/** A challenge without `resource.description`, `accepts[].description` and `message`. */
function bareChallenge(decision: GateDecision): GateDecision {
  if (decision.action !== 'respond' || decision.headers[HEADERS.PAYMENT_REQUIRED] === undefined) return decision;
  const { message: _message, ...challenge } = decision.body as PaymentRequiredResponse;
  const body: PaymentRequiredResponse = {
    ...challenge,
    resource: { url: challenge.resource.url },
    accepts: challenge.accepts.map(({ description: _description, ...accept }) => accept),
  };
  return { ...decision, headers: { ...decision.headers, [HEADERS.PAYMENT_REQUIRED]: encodeBase64Json(body) }, body };
}

/** A payload whose `topUpAmount` is a number ≤ 0, re-encoded with 1 (below every minTopUp) so that step 5.1 rejects it. */
function nonPositiveTopUp(header: GateRequest['paymentHeader']): { header: string; topUp: number } | undefined {
  if (typeof header !== 'string') return undefined;
  const decoded = decodeBase64Json(header.trim());
  if (!decoded.ok || typeof decoded.value !== 'object' || decoded.value === null || Array.isArray(decoded.value)) return undefined;
  const topUp = (decoded.value as { topUpAmount?: unknown }).topUpAmount;
  if (typeof topUp !== 'number' || topUp > 0) return undefined;
  return { header: encodeBase64Json({ ...decoded.value, topUpAmount: 1 }), topUp };
}

/** Wraps the reference gate: HEAD only by its own key, an empty header is absent, topUpAmount ≤ 0 is below the minimum, bare challenges. */
function sourceFollowingGate(gate: Gate): Gate {
  return {
    ...gate,
    async handle(request) {
      if (request.method === 'HEAD' && !gate.routes.has(`HEAD ${request.url.split(/[?#]/)[0]}`)) return { action: 'pass' };
      const header = request.paymentHeader === '' ? undefined : request.paymentHeader;
      const rewritten = nonPositiveTopUp(header);
      const decision = bareChallenge(await gate.handle({ ...request, paymentHeader: rewritten?.header ?? header }));
      if (rewritten === undefined || decision.action !== 'respond') return decision;
      const body = decision.body as { errorCode?: string; error?: string };
      if (body.errorCode !== 'top_up_below_minimum') return decision;
      return { ...decision, body: { ...body, error: body.error?.replace(/^Top-up amount 1 units/, `Top-up amount ${rewritten.topUp} units`) } };
    },
  };
}

/** A running source-following target. */
export interface RunningSourceFollowing {
  url: string;
  close(): Promise<void>;
}

/** Where a target built on this one departs from it (source-departures-target.ts): wrappers of its gate and of its Stripe processor. */
export interface Departures {
  gate?: (gate: Gate) => Gate;
  processor?: (processor: Processor) => Processor;
}

/** Starts the target on `config.host:config.port` with a memory store, talking to the Stripe API at `config.stripeApi`. */
export async function startSourceFollowing(config: ServerConfig, departures: Departures = {}): Promise<RunningSourceFollowing> {
  const { gate: profiled, store } = await profileGate(config, {
    processor: { customerMetadataKey: SOURCE_METADATA_KEY, customerSearchQuote: 'double', maxNetworkRetries: 2 },
    serviceName: SOURCE_SERVICE_NAME,
    ...(departures.processor ? { wrapProcessor: departures.processor } : {}),
  });
  const followed = sourceFollowingGate(profiled);
  const gate = departures.gate?.(followed) ?? followed;
  // The reference's Fastify app, except that without HEAD routes Fastify answers HEAD to a GET path 404 instead of running the GET handler.
  const app = Fastify({ logger: false, exposeHeadRoutes: false });
  await app.register(credit402Fastify, { gate });
  const routes = demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers);
  const runs = new HandlerRuns();
  for (const route of routes) {
    app.route({
      method: route.method,
      url: fastifyPath(route),
      handler: async (request, reply) => {
        const answer = demoAnswer(route, runs, request.headers[REQUEST_ID_HEADER], request.credit402, request.params as Record<string, string>);
        return reply.code(answer.status).send(answer.body);
      },
    });
  }
  if (mountsHandledRoute(routes)) app.get(HANDLED_PATH, async (request) => runs.answer(request.url));
  await app.listen({ host: config.host, port: config.port });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://${config.host}:${port}`, close: () => app.close().then(() => store.close()) };
}
