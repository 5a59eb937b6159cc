// The Stripe emulator of a run: started in-process (on a free port for a target the kit starts, else on the profile's fixed address), or one already running.
import { controlUrlOf, startEmulator } from 'credit402-stripe-emulator';
import type { TargetChoice } from './cli-options.ts';
import { emulatorAddress, readProfile } from './profile.ts';

/** The emulator the suite and the target use. */
interface RunEmulator {
  url: string;
  close(): Promise<void>;
}

async function answersAsEmulator(url: string): Promise<boolean> {
  try {
    const response = await fetch(controlUrlOf(url), { signal: AbortSignal.timeout(2000) });
    return response.ok && ((await response.json()) as { ok?: unknown }).ok === true;
  } catch {
    return false;
  }
}

function portTakenMessage(host: string, port: number, isEmulator: boolean): string {
  const holder = isEmulator
    ? `a credit402 Stripe emulator already listens there: probably another conformance run or \`credit402-stripe-emulator\``
    : `another program listens there (see \`ss -ltnp 'sport = :${port}'\`)`;
  return [
    `cannot start the Stripe emulator on ${host}:${port}: the port is taken; ${holder}.`,
    `Stop it, or run with --emulator-port N (0 = any free port; a --target must then use that address itself),`,
    `or with --emulator-url http://${host}:${port} to use the running emulator.`,
  ].join('\n');
}

/** Starts the emulator on host:port with a clear error when the port is taken. */
export async function startRunEmulator(host: string, port: number): Promise<RunEmulator> {
  try {
    const emulator = await startEmulator({ host, port });
    return { url: emulator.url, close: () => emulator.close() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new Error(portTakenMessage(host, port, await answersAsEmulator(`http://${host}:${port}`)));
  }
}

/** Checks that `url` is a running emulator (its control API answers); nothing to stop afterwards. */
export async function useRunningEmulator(url: string): Promise<RunEmulator> {
  if (!(await answersAsEmulator(url))) {
    throw new Error(`--emulator-url ${url}: no credit402 Stripe emulator answers there (GET ${controlUrlOf(url)}); start one with \`npx credit402-stripe-emulator --port N\``);
  }
  return { url, close: async () => {} };
}

/**
 * The port the run's emulator binds: the one the user named; for a target the kit starts (`--target-cmd`, which learns
 * the emulator's URL from STRIPE_API_BASE) any free port, so that a run holds on a machine where something else has the
 * profile's port; for a running `--target`, which was pointed at the profile's address, that address's port.
 */
export function runEmulatorPort(targetKind: 'url' | 'command', named: number | undefined, profilePort: number): number {
  if (named !== undefined) return named;
  return targetKind === 'command' ? 0 : profilePort;
}

/**
 * The emulator of a run (conformance or history): the running one `--emulator-url` names, else one started on the
 * profile's host and the port {@link runEmulatorPort} chooses.
 */
export function openRunEmulator(choice: { target: TargetChoice; emulatorPort?: number; emulatorUrl?: string }, profilePath: string): Promise<RunEmulator> {
  if (choice.emulatorUrl !== undefined) return useRunningEmulator(choice.emulatorUrl);
  const fixed = emulatorAddress(readProfile(profilePath));
  return startRunEmulator(fixed.host, runEmulatorPort(choice.target.kind, choice.emulatorPort, fixed.port));
}
