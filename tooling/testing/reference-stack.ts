// Test helper: the Stripe emulator and a reference server pointed at it, started for a test file and closed after it.
import { afterAll, beforeAll } from 'vitest';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { loadServerConfig, startReferenceServer, type RunningServer, type ServerConfig, type ServerInjections } from 'credit402/server';

/** The running pieces; read them inside tests (they are set in `beforeAll`). */
interface ReferenceStack {
  emulator: RunningEmulator;
  control: EmulatorControl;
  server: RunningServer;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start the emulator on a free port and the reference server on it
 * (memory store unless `overrides` says otherwise, or `store` is injected; `express` injects another Express major).
 */
export function useReferenceStack(overrides: Partial<ServerConfig> = {}, injected: ServerInjections = {}): ReferenceStack {
  const stack = {} as ReferenceStack;
  beforeAll(async () => {
    stack.emulator = await startEmulator({ port: 0 });
    stack.control = new EmulatorControl(stack.emulator.controlUrl);
    const config = loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, stripeApi: stack.emulator.url, ...overrides } });
    stack.server = await startReferenceServer(config, injected);
  });
  afterAll(async () => {
    await stack.server?.close();
    await stack.emulator?.close();
  });
  return stack;
}
