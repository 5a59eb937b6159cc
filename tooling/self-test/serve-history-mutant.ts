// Serves the reference server over a doctored memory store with the conformance control routes (store faults, records), optionally refunding failed handlers: a broken target for the kit's history runner.
import { loadServerConfig, startReferenceServer } from 'credit402/server';
import { MemoryStore, type Store } from 'credit402/stores';

/** How the mutant is served beside its store. */
export interface HistoryMutantOptions {
  /** Give a failed handler's price back (the gate option the history declares as `refundOnHandlerError=true`). */
  refundOnHandlerError?: boolean;
}

/**
 * Starts the mutant as a history target: profile from CREDIT402_PROFILE, port from PORT, Stripe API from
 * STRIPE_API_BASE, the reference's Fastify server with `--conformance-control` over `mutate` of a fresh memory store,
 * so that the store faults the kit arms (declared `capabilities=storeFaults`) fail the calls before they reach the mutant.
 */
export async function serveHistoryMutant(name: string, mutate: (store: Store) => Store, options: HistoryMutantOptions = {}): Promise<void> {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error(`mutant ${name}: CREDIT402_PROFILE is not set; start it with credit402-conformance history --target-cmd`);
  const config = loadServerConfig({
    profilePath,
    env: process.env,
    overrides: { framework: 'fastify', store: { kind: 'memory' }, conformanceControl: true, refundOnHandlerError: options.refundOnHandlerError === true },
  });
  const memory = new MemoryStore();
  const server = await startReferenceServer(config, { store: mutate(memory) });
  console.log(`mutant ${name} listening on ${server.url} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void server.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
