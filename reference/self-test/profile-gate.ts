// The reference gate on a memory store, configured from a conformance profile: what the self-test targets wrap.
import { createCredit402 } from '../credit402.ts';
import type { Gate } from '../gate/gate.ts';
import type { Store } from '../stores/store.ts';
import { stripeApiBase } from '../processor/stripe-processor.ts';
import { buildStore } from '../server/build-store.ts';
import type { ServerConfig } from '../server/server-config.ts';

/** The gate of `config` (routes, keys, service name, metadata key, Stripe API) over a fresh memory store, and that store. */
export async function profileGate(config: ServerConfig): Promise<{ gate: Gate; store: Store }> {
  const store = await buildStore({ kind: 'memory' });
  const gate = createCredit402({
    stripeSecretKey: config.stripeSecretKey,
    stripePublishableKey: config.stripePublishableKey,
    serverSecret: config.serverSecret,
    store,
    routes: config.routes,
    stripeApi: stripeApiBase(config.stripeApi),
    ...(config.serviceName ? { serviceName: config.serviceName } : {}),
    ...(config.customerMetadataKey ? { customerMetadataKey: config.customerMetadataKey } : {}),
  });
  return { gate, store };
}
