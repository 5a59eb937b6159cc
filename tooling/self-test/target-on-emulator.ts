// Test helper: the Stripe emulator and a self-test target started on it (memory store, a free port) for a test file or a describe block.
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { loadServerConfig, type ServerConfig } from 'credit402/server';

/** A self-test target once started: where it listens, and how it stops. */
interface RunningTarget {
  url: string;
  close(): Promise<void>;
}

/** The running pieces; read them inside tests (they are set in `beforeAll`). */
export interface TargetOnEmulator<Target extends RunningTarget> {
  emulator: RunningEmulator;
  target: Target;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start the emulator on a free port and the target `start` builds from the
 * server configuration pointed at it (memory store, port 0), and close both after the tests.
 */
export function useTargetOnEmulator<Target extends RunningTarget>(start: (config: ServerConfig) => Promise<Target>): TargetOnEmulator<Target> {
  const running = {} as TargetOnEmulator<Target>;
  beforeAll(async () => {
    running.emulator = await startEmulator({ port: 0 });
    running.target = await start(loadServerConfig({ overrides: { port: 0, stripeApi: running.emulator.url, store: { kind: 'memory' } } }));
  });
  afterAll(async () => {
    await running.target?.close();
    await running.emulator?.close();
  });
  return running;
}
