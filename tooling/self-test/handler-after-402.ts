// Mutant target: after answering 402, the gated route's handler runs all the same, its run counted (breaks CR-4.6, CR-1.1).
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { demoRoutes, runDemoHandler } from 'credit402/internal/server/demo-routes';
import { buildFastifyApp } from 'credit402/internal/server/fastify-app';
import { HandlerRuns, REQUEST_ID_HEADER } from 'credit402/internal/conformance-control/handler-runs';
import { loadServerConfig, type ServerConfig } from 'credit402/server';
import { profileGate } from './profile-gate.ts';

/** A running mutant. */
export interface RunningMutant {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the mutant on `config.host:config.port` with a memory store: the reference's Fastify app, plus a hook that
 * runs the gated handler (which counts its run) once a 402 answer was sent, the way a middleware that answers and
 * then passes control on anyway would. Every answer on the wire stays the reference's.
 */
export async function startHandlerAfter402(config: ServerConfig): Promise<RunningMutant> {
  const { gate, store } = await profileGate(config);
  const routes = demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers);
  const runs = new HandlerRuns();
  const app = await buildFastifyApp(gate, routes, { runs });
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 402) return;
    const method = request.routeOptions.method === 'HEAD' ? 'GET' : request.routeOptions.method;
    const route = routes.find((candidate) => candidate.gated && candidate.path === request.routeOptions.url && candidate.method === method);
    if (route) runDemoHandler(route, runs, request.headers[REQUEST_ID_HEADER], undefined);
  });
  await app.listen({ host: config.host, port: config.port });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://${config.host}:${port}`, close: () => app.close().then(() => store.close()) };
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error('mutant handler-after-402: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd');
  const config = loadServerConfig({ profilePath, env: process.env });
  const mutant = await startHandlerAfter402(config);
  console.log(`mutant handler-after-402 listening on ${mutant.url} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void mutant.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
