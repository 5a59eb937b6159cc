// Mutant target: store calls without a deadline: a store that hangs holds the paid request as long as it hangs, and
// the deduction it finally makes is served, instead of a 503 at the target's bound (breaks CR-8.12).
import { pathToFileURL } from 'node:url';
import { loadServerConfig, startReferenceServer, type ServerConfig, type RunningServer } from 'credit402/server';

/**
 * A gate's deadline on store calls far beyond any hold (an hour): the reference gate has no switch to drop it, so the
 * mutant sets one no request outlives. setTimeout allows up to 2^31 - 1 ms; this stays well inside.
 */
const NO_DEADLINE_MS = 3_600_000;

/**
 * Starts the mutant: the reference server (Fastify, a memory store, the conformance control routes, so that the kit's
 * store faults can hold a call) whose gate waits for the store as long as it takes.
 */
export function startNoStoreDeadline(config: ServerConfig): Promise<RunningServer> {
  return startReferenceServer({ ...config, framework: 'fastify', store: { kind: 'memory' }, conformanceControl: true, storeTimeoutMs: NO_DEADLINE_MS });
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error('mutant no-store-deadline: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd');
  const server = await startNoStoreDeadline(loadServerConfig({ profilePath, env: process.env }));
  console.log(`mutant no-store-deadline listening on ${server.url} (Stripe API ${server.stripeApiUrl})`);
  const stop = (): void => void server.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
