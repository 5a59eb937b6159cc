// Public entry point of the Stripe emulator: start an instance, get its URLs, close it.
import { EmulatorState } from './context.ts';
import { controlUrlOf } from './control-routes.ts';
import { createEmulatorServer } from './server.ts';
import type { AddressInfo } from 'node:net';
import type { WebhookEndpointInfo } from './control-types.ts';

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** TCP port; default 0 (a free port chosen by the OS). */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Customers become visible to search this many ms after creation; default 0. */
  searchLagMs?: number;
  /** stripe-mock base URL used as a validation oracle; default `process.env.STRIPE_MOCK_URL`. */
  stripeMockUrl?: string;
  /**
   * Serve the control API under `/_emulator` (journal, faults, webhooks, events, refunds, disputes); default true.
   * It has no authentication: turn it off where other local processes must not drive the emulator.
   */
  controlApi?: boolean;
}

/** A started emulator. */
export interface RunningEmulator {
  /** Base URL of the Stripe API, e.g. `http://127.0.0.1:12111`. */
  url: string;
  /** Base URL of the control API: `url + '/_emulator'` (answered only when `controlApi` is on). */
  controlUrl: string;
  /** Whether the control API is served. */
  controlApi: boolean;
  port: number;
  host: string;
  /** Registers a webhook endpoint in-process (works with the control API off); its events are signed with `secret`. */
  registerWebhook(url: string, secret: string): WebhookEndpointInfo;
  /** Stops listening, ends every connection (held requests included) and abandons webhook deliveries. */
  close(): Promise<void>;
}

/** Starts a behavioural Stripe API emulator; point the stripe SDK at `url` with `protocol: 'http'`. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const stripeMockUrl = options.stripeMockUrl ?? (process.env.STRIPE_MOCK_URL || undefined);
  const state = new EmulatorState(options.searchLagMs ?? 0, stripeMockUrl);
  const controlApi = options.controlApi ?? true;
  const { server, destroy } = createEmulatorServer(state, { controlApi });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    controlUrl: controlUrlOf(url),
    controlApi,
    port,
    host,
    registerWebhook: (endpointUrl, secret) => state.webhooks.register(endpointUrl, secret),
    close: destroy,
  };
}

export { EmulatorControl } from './control-client.ts';
export { CONTROL_PREFIX, controlUrlOf } from './control-routes.ts';
export { signPayload } from './webhooks.ts';
export type * from './control-types.ts';
