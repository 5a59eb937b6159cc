// Serves the reference gate with a doctored processor: a deliberately broken target for checking that the suite catches bugs.
import type { Gate } from 'credit402/gate';
import type { Processor } from 'credit402';
import { demoRoutes } from 'credit402/internal/server/demo-routes';
import { buildFastifyApp } from 'credit402/internal/server/fastify-app';
import { loadServerConfig } from 'credit402/server';
import { profileGate, type GateChanges } from './profile-gate.ts';

/** A processor that forwards every call to `inner` except those in `overrides`. */
export function wrapProcessor(inner: Processor, overrides: Partial<Processor>): Processor {
  return {
    getCardFingerprint: overrides.getCardFingerprint ?? ((paymentMethodId) => inner.getCardFingerprint(paymentMethodId)),
    findOrCreateCustomer: overrides.findOrCreateCustomer ?? ((clientId, paymentMethodId) => inner.findOrCreateCustomer(clientId, paymentMethodId)),
    charge: overrides.charge ?? ((request) => inner.charge(request)),
  };
}

/**
 * Starts the mutant as a conformance target: profile from CREDIT402_PROFILE, port from PORT, Stripe API from
 * STRIPE_API_BASE (what `--target-cmd` provides), a fresh memory store, the reference's Fastify app. `changes` are
 * gate options of the mutant beyond its doctored processor (`mutate`) and gate (`mutateGate`).
 */
export async function serveMutant(
  name: string,
  mutate: (processor: Processor) => Processor,
  mutateGate: (gate: Gate) => Gate = (gate) => gate,
  changes: Omit<GateChanges, 'wrapProcessor'> = {},
): Promise<void> {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error(`mutant ${name}: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd`);
  const config = loadServerConfig({ profilePath, env: process.env });
  const { gate: profiled, store } = await profileGate(config, { ...changes, wrapProcessor: mutate });
  const gate = mutateGate(profiled);
  const app = await buildFastifyApp(gate, demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers));
  await app.listen({ host: config.host, port: config.port });
  console.log(`mutant ${name} listening on http://${config.host}:${config.port} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void app.close().then(() => store.close()).finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
