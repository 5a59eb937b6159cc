// Command-line options of `npm run conformance`: parsing, checking and the usage text.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DeclarationError, parseDeclarations, parseDeclareItems, type Declarations } from '../world/declarations.ts';
import { isLevel, type Level } from '../world/levels.ts';

/** The command that runs the kit, as the user typed it (the repository's npm script sets CREDIT402_KIT_COMMAND). */
export const KIT = process.env.CREDIT402_KIT_COMMAND ?? 'credit402-conformance';

/** The default budget of the generated histories of a robust run (`--history-seconds`): about a fifth of a full run's time against the reference. */
export const DEFAULT_HISTORY_SECONDS = 10;

export const USAGE = `usage: ${KIT} conformance (--target URL | --target-cmd "CMD") [options]

Runs the credit402 conformance suite (features/*.feature) against a target, with the Stripe
emulator started in-process.

target (exactly one)
  --target URL          check a server that is already running and talks to the emulator
                        at the profile's address (http://127.0.0.1:12111)
  --target-cmd "CMD"    start a target through the shell, in the current directory, with
                        CREDIT402_PROFILE (profile path), PORT (free port) and STRIPE_API_BASE
                        (emulator URL) in its environment; it must answer on
                        http://127.0.0.1:$PORT/ within 30 s

emulator
  --emulator-port N     start the emulator on port N (0 = any free port); default: any free
                        port with --target-cmd, the profile's 12111 with --target (a --target
                        on another port must be pointed there itself)
  --emulator-url URL    use an emulator that is already running; start none

levels and declarations
  --level L             judge up to level L: wire (what the stripe402 source states), strict
                        (credit402's decisions, default) or robust (spec section 14; default
                        when the target declares robustness=true)
  --declare KEY=VALUE   what the target declares (repeatable): serviceName=NAME and
                        customerMetadataKey=KEY (service-defined values; default the profile's),
                        robustness=true (it implements spec section 14), capabilities=LIST
                        (storeFaults, records: its conformance-only control routes; gateway:
                        a gateway, started in front of the kit's own upstream, whose URL the
                        runner hands --target-cmd in CREDIT402_UPSTREAM_URL)
  --declare-file FILE   the same declarations as a JSON object

suite
  --tags "EXPR"         cucumber tag expression, e.g. "@CR-7.14 or @CR-7.3", "not @fuzz"
                        (a run with --tags makes no generated histories unless --history-seconds asks)
  --parallel N          run scenarios in N worker processes
  --reports DIR         where the reports go (default: reports, in the current directory)
  -h, --help            print this text and exit

generated histories (part of the robust level)
  --history-seconds S   after the suite, a robust run drives generated histories against the same
                        target for S seconds and checks them against the ledger model (as \`${KIT}
                        history\` does); default ${DEFAULT_HISTORY_SECONDS}, 0 = none; a failure fails the requirement
                        it is charged to
  --seed N              their fast-check seed (default: a fresh one, printed): the same seed draws the
                        same histories

Other commands: \`${KIT} client --client-cmd "CMD"\` judges an HTTP client instead (--help);
\`${KIT} profile\` prints the profile a target must load;
\`${KIT} coverage\` prints which scenario checks which requirement;
\`${KIT} compare DIR… --out matrix.html\` puts the reports of several runs side by side.

Reports, in the reports directory: conformance.html (the kit's self-contained report: levels,
failures with their transcripts, not-run reasons, the requirement matrix), conformance-summary.json
(verdicts per level, requirement and scenario, and the histories'), conformance.junit.xml (skips
carry their reason; the histories are one more test case), history-counterexample.json (a failed
history's replay script), conformance.json (cucumber's) and the target's output (target.log).
Exit code 0 when no scenario and no history failed (inconclusive and not-run scenarios are listed,
not failed); 1 when one failed; 2 when the run could not start.`;

/** What the runner was asked to do. */
type RunnerCommand = { kind: 'help' } | { kind: 'run'; options: RunOptions };

/** Where the target under test comes from. */
export type TargetChoice =
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
  /** Directory of the report files, relative to the current directory unless absolute. */
  reportsDir: string;
  /** The highest level judged. */
  level: Level;
  declarations: Declarations;
  /**
   * The budget of the generated histories a robust run makes after the suite, in seconds (0 = none); absent: the
   * default ({@link DEFAULT_HISTORY_SECONDS}) for a run of the whole suite, none with `tags`.
   */
  historySeconds?: number;
  /** The histories' fast-check seed; absent: a fresh one, printed. */
  seed?: number;
}

/** A command-line mistake; the message is meant for the user. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A whole-number option from `min` to `max`; undefined when absent. */
export function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) throw new UsageError(`--${name} must be an integer from ${min} to ${max}; got "${value}"`);
  return number;
}

/** An http(s) URL option without its trailing slashes; undefined when absent. */
export function httpUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^https?:\/\/[^/]+/.test(value) || !URL.canParse(value)) throw new UsageError(`--${name} must be an http(s) URL; got "${value}"`);
  return value.replace(/\/+$/, '');
}

/** The declarations of `--declare-file` and `--declare` (the latter win). */
export function declared(file: string | undefined, items: readonly string[]): Declarations {
  try {
    const fromFile = file === undefined ? {} : (JSON.parse(readFileSync(file, 'utf8')) as unknown);
    if (typeof fromFile !== 'object' || fromFile === null) throw new DeclarationError(`${file} must hold a JSON object`);
    return parseDeclarations({ ...fromFile, ...parseDeclareItems(items) });
  } catch (error) {
    const { message } = error as Error;
    throw new UsageError(error instanceof DeclarationError ? message : `--declare-file ${file}: ${message}`);
  }
}

/** The target of `--target` or `--target-cmd`: exactly one. */
export function targetChoice(values: Record<string, string | boolean | string[] | undefined>): TargetChoice {
  const url = httpUrl('target', values.target as string | undefined);
  const command = values['target-cmd'] as string | undefined;
  if (url !== undefined && command !== undefined) throw new UsageError('use either --target or --target-cmd, not both');
  if (url !== undefined) return { kind: 'url', url };
  if (command === undefined) throw new UsageError('say which implementation to check: --target URL or --target-cmd "CMD"');
  if (command.trim() === '') throw new UsageError('--target-cmd needs a command');
  return { kind: 'command', command };
}

/**
 * The `gateway` capability needs a target the runner starts (it learns the upstream's URL from CREDIT402_UPSTREAM_URL)
 * and the scenarios in the runner's process (they control the upstream the runner owns, never from a worker process).
 */
export function gatewayRunnable(target: TargetChoice, parallel: number): void {
  if (target.kind !== 'command') throw new UsageError('capabilities=gateway needs --target-cmd: the gateway is started in front of the kit\'s upstream (CREDIT402_UPSTREAM_URL)');
  if (parallel > 0) throw new UsageError('capabilities=gateway runs the scenarios in the runner\'s process, which owns the upstream: leave out --parallel');
}

/** The values `parseArgs` gives for a command's options. */
export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

/** Options of `parseArgs`, as the kit's commands declare them. */
type OptionSpecs = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

/** The options of the commands that start a target: which target, the emulator, the declarations, the reports, help. */
export const TARGET_OPTIONS = {
  target: { type: 'string' },
  'target-cmd': { type: 'string' },
  'emulator-port': { type: 'string' },
  'emulator-url': { type: 'string' },
  declare: { type: 'string', multiple: true },
  'declare-file': { type: 'string' },
  reports: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

/** Parses `args` with `options` strictly (no positionals); a mistake is a UsageError. */
export function parseKitArgs(args: readonly string[], options: OptionSpecs): ParsedValues {
  try {
    return parseArgs({ args: [...args], strict: true, allowPositionals: false, options }).values as ParsedValues;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The target, the emulator and the declarations that {@link TARGET_OPTIONS} gave. */
export function targetOptions(values: ParsedValues): { target: TargetChoice; emulatorPort?: number; emulatorUrl?: string; declarations: Declarations } {
  const emulatorPort = integer('emulator-port', values['emulator-port'] as string | undefined, 0, 65535);
  const emulatorUrl = httpUrl('emulator-url', values['emulator-url'] as string | undefined);
  if (emulatorPort !== undefined && emulatorUrl !== undefined) throw new UsageError('use either --emulator-port or --emulator-url, not both');
  const declarations = declared(values['declare-file'] as string | undefined, (values.declare as string[] | undefined) ?? []);
  return {
    target: targetChoice(values),
    ...(emulatorPort !== undefined ? { emulatorPort } : {}),
    ...(emulatorUrl !== undefined ? { emulatorUrl } : {}),
    declarations,
  };
}

/** `--level`, checked; absent: robust when the target declares robustness, else strict. */
export function levelOption(values: ParsedValues, declarations: Declarations): Level {
  const level = values.level as string | undefined;
  if (level !== undefined && !isLevel(level)) throw new UsageError(`--level must be wire, strict or robust; got "${level}"`);
  return level ?? (declarations.robustness ? 'robust' : 'strict');
}

/** `--tags`, when it holds an expression. */
export function tagsOption(values: ParsedValues): { tags?: string } {
  const tags = values.tags as string | undefined;
  return tags !== undefined && tags.trim() !== '' ? { tags } : {};
}

/** Parses the runner's arguments; throws a UsageError on a mistake. */
export function parseRunnerArgs(args: readonly string[]): RunnerCommand {
  const values = parseKitArgs(args, {
    ...TARGET_OPTIONS,
    tags: { type: 'string' },
    parallel: { type: 'string' },
    level: { type: 'string' },
    'history-seconds': { type: 'string' },
    seed: { type: 'string' },
  });
  if (values.help) return { kind: 'help' };
  const { target, declarations, ...emulator } = targetOptions(values);
  const level = levelOption(values, declarations);
  const parallel = integer('parallel', values.parallel as string | undefined, 0, 64) ?? 0;
  if (declarations.capabilities?.includes('gateway')) gatewayRunnable(target, parallel);
  const historySeconds = integer('history-seconds', values['history-seconds'] as string | undefined, 0, 86_400);
  const seed = integer('seed', values.seed as string | undefined, 0, 2 ** 31 - 1);
  if (level !== 'robust' && ((historySeconds ?? 0) > 0 || seed !== undefined)) {
    throw new UsageError(`the generated histories (--history-seconds, --seed) are part of the robust level; this run judges up to ${level} (--level robust)`);
  }
  return {
    kind: 'run',
    options: {
      target,
      ...emulator,
      ...tagsOption(values),
      parallel,
      reportsDir: (values.reports as string | undefined) || 'reports',
      level,
      declarations,
      ...(historySeconds !== undefined ? { historySeconds } : {}),
      ...(seed !== undefined ? { seed } : {}),
    },
  };
}
