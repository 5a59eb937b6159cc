// Command-line options of `npm run conformance`: parsing, checking and the usage text.
import { parseArgs } from 'node:util';

export const USAGE = `usage: npm run conformance -- [options]

Runs the credit402 conformance suite (features/**/*.feature) against a target.
Without --target or --target-cmd it starts the Stripe emulator and the reference server.

target (at most one; default: the reference server)
  --target URL          check a server that is already running and talks to the emulator
                        at the profile's address (http://127.0.0.1:12111)
  --target-cmd "CMD"    start a target through the shell with CREDIT402_PROFILE (profile path),
                        PORT (free port) and STRIPE_API_BASE (emulator URL) in its environment;
                        it must answer on http://127.0.0.1:$PORT/ within 30 s

reference server (only without --target / --target-cmd)
  --store KIND          sqlite (default, fresh temp file per run) | redis | memory
                        redis: REDIS_URL, else a redis-server from PATH, else testcontainers
  --framework NAME      fastify (default) | express

emulator
  --emulator-port N     start the emulator on port N instead of the profile's 12111
                        (0 = any free port; a --target must then be pointed there itself)
  --emulator-url URL    use an emulator that is already running; start none

suite
  --tags "EXPR"         cucumber tag expression, e.g. "@CR-7.14 or @CR-7.3", "not @robustness"
  --parallel N          run scenarios in N worker processes
  --reports DIR         where the reports go (default: reports)
  --print-profile       print the conformance profile with what a target must do, and exit
  -h, --help            print this text and exit

Reports: conformance.junit.xml, conformance.json, conformance.html and the target's output
(target.log) in the reports directory. Exit code 0 only when every scenario passed; 1 when a
scenario failed; 2 when the run could not start.`;

/** What the runner was asked to do. */
export type RunnerCommand = { kind: 'help' } | { kind: 'print-profile' } | { kind: 'run'; options: RunOptions };

/** Where the target under test comes from. */
export type TargetChoice =
  | { kind: 'reference'; store: 'sqlite' | 'redis' | 'memory'; framework: 'fastify' | 'express' }
  | { kind: 'url'; url: string }
  | { kind: 'command'; command: string };

/** Options of one conformance run. */
export interface RunOptions {
  target: TargetChoice;
  /** Port of the in-process emulator; undefined = the profile's fixed port. */
  emulatorPort?: number;
  /** An emulator that is already running; the runner starts none. */
  emulatorUrl?: string;
  tags?: string;
  parallel: number;
  /** Directory of the report files, relative to the repository root unless absolute. */
  reportsDir: string;
}

/** A command-line mistake; the message is meant for the user. */
export class UsageError extends Error {
  override name = 'UsageError';
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')}; got "${value}"`);
}

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) throw new UsageError(`--${name} must be an integer from ${min} to ${max}; got "${value}"`);
  return number;
}

function httpUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^https?:\/\/[^/]+/.test(value) || !URL.canParse(value)) throw new UsageError(`--${name} must be an http(s) URL; got "${value}"`);
  return value.replace(/\/+$/, '');
}

function targetChoice(values: Record<string, string | boolean | undefined>): TargetChoice {
  const url = httpUrl('target', values.target as string | undefined);
  const command = values['target-cmd'] as string | undefined;
  const referenceFlags = ['store', 'framework'].filter((flag) => values[flag] !== undefined);
  if (url !== undefined && command !== undefined) throw new UsageError('use either --target or --target-cmd, not both');
  if ((url !== undefined || command !== undefined) && referenceFlags.length > 0) {
    throw new UsageError(`--${referenceFlags.join(' and --')} configure the reference server and cannot be combined with --target or --target-cmd`);
  }
  if (url !== undefined) return { kind: 'url', url };
  if (command !== undefined) {
    if (command.trim() === '') throw new UsageError('--target-cmd needs a command');
    return { kind: 'command', command };
  }
  return {
    kind: 'reference',
    store: oneOf('store', values.store as string | undefined, ['sqlite', 'redis', 'memory'] as const, 'sqlite'),
    framework: oneOf('framework', values.framework as string | undefined, ['fastify', 'express'] as const, 'fastify'),
  };
}

/** Parses the runner's arguments; throws a UsageError on a mistake. */
export function parseRunnerArgs(args: readonly string[]): RunnerCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        target: { type: 'string' },
        'target-cmd': { type: 'string' },
        store: { type: 'string' },
        framework: { type: 'string' },
        'emulator-port': { type: 'string' },
        'emulator-url': { type: 'string' },
        tags: { type: 'string' },
        parallel: { type: 'string' },
        reports: { type: 'string' },
        'print-profile': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values['print-profile']) return { kind: 'print-profile' };
  const emulatorPort = integer('emulator-port', values['emulator-port'] as string | undefined, 0, 65535);
  const emulatorUrl = httpUrl('emulator-url', values['emulator-url'] as string | undefined);
  if (emulatorPort !== undefined && emulatorUrl !== undefined) throw new UsageError('use either --emulator-port or --emulator-url, not both');
  const tags = values.tags as string | undefined;
  return {
    kind: 'run',
    options: {
      target: targetChoice(values),
      ...(emulatorPort !== undefined ? { emulatorPort } : {}),
      ...(emulatorUrl !== undefined ? { emulatorUrl } : {}),
      ...(tags !== undefined && tags.trim() !== '' ? { tags } : {}),
      parallel: integer('parallel', values.parallel as string | undefined, 0, 64) ?? 0,
      reportsDir: (values.reports as string | undefined) || 'reports',
    },
  };
}
