// The reference gate on a memory store, configured from a conformance profile: what the self-test targets wrap.
import { createGate, type Gate } from 'credit402/gate';
import type { Processor } from 'credit402';
import { StripeProcessor, stripeApiBase, type StripeProcessorOptions } from 'credit402/stripe';
import { buildStore } from 'credit402/internal/compose/build-store';
import type { ServerConfig } from 'credit402/server';
import type { Store } from 'credit402/stores';

/** What a self-test target changes in the profile's gate. */
export interface GateChanges {
  /** Options of the Stripe processor over the profile's (e.g. another customer metadata key). */
  processor?: Partial<StripeProcessorOptions>;
  /** Wraps the Stripe processor (a mutant's doctored calls). */
  wrapProcessor?: (processor: Processor) => Processor;
  /** The service name of PaymentIntent descriptions, instead of the profile's. */
  serviceName?: string;
  /** Give the price back when the handler fails (the gate option; default off, as conformance runs have it). */
  refundOnHandlerError?: boolean;
}

/** The gate of `config` (routes, keys, service name, metadata key, Stripe API) with `changes`, over a fresh memory store, and that store. */
export async function profileGate(config: ServerConfig, changes: GateChanges = {}): Promise<{ gate: Gate; store: Store }> {
  const store = await buildStore({ kind: 'memory' });
  const processor = new StripeProcessor({
    secretKey: config.stripeSecretKey,
    api: stripeApiBase(config.stripeApi),
    ...(config.customerMetadataKey ? { customerMetadataKey: config.customerMetadataKey } : {}),
    ...changes.processor,
  });
  const serviceName = changes.serviceName ?? config.serviceName;
  const gate = createGate({
    stripePublishableKey: config.stripePublishableKey,
    serverSecret: config.serverSecret,
    store,
    routes: config.routes,
    processor: changes.wrapProcessor?.(processor) ?? processor,
    ...(serviceName ? { serviceName } : {}),
    ...(changes.refundOnHandlerError === undefined ? {} : { refundOnHandlerError: changes.refundOnHandlerError }),
  });
  return { gate, store };
}
