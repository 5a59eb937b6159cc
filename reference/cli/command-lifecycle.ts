// What the long-running commands (`serve`, `gateway`) share: how a start failure is told, and how a signal stops the service.
import { Credit402ConfigError } from '../config/config-error.ts';

/**
 * The exit code of a command whose service could not start, after telling why on stderr: 2 with the usage for a
 * configuration error (a coded Credit402ConfigError), 1 with the error for anything else.
 */
export function startFailure(what: string, usage: string, error: unknown): number {
  if (error instanceof Credit402ConfigError) {
    console.error(`credit402: configuration error ${error.message}\n\n${usage}`);
    return 2;
  }
  console.error(`credit402: ${what} could not start:`, error);
  return 1;
}

/** Closes `service` on SIGINT or SIGTERM, then exits 0 (1 when closing failed). */
export function closeOnSignal(service: { close(): Promise<void> }): void {
  const stop = (): void => {
    service.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
