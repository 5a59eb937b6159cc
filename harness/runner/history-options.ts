// Command-line options of `credit402-conformance history`: parsing, checking and the usage text (target, emulator and declarations as for `conformance`).
import type { Declarations } from '../world/declarations.ts';
import { integer, KIT, parseKitArgs, TARGET_OPTIONS, type TargetChoice, targetOptions, UsageError } from './cli-options.ts';

export const HISTORY_USAGE = `usage: ${KIT} history (--target URL | --target-cmd "CMD") [options]

Drives generated histories against a target (first payments with new and known cards in the
profile's currencies, spends by clientId and with request ids, retries of an id by the same client,
another client or on another route, bursts of concurrent calls, the failing handlers, malformed
bodies on the paid POST, store faults when the target declares storeFaults, and failures of the
kit's upstream when it declares gateway) and checks every
answer against a ledger model. A violation is shrunk to a minimal history, printed as a replayable
script with its transcript and charged to the requirement the broken invariant enforces.

target, emulator and declarations: as for \`${KIT} conformance\` (--target, --target-cmd,
--emulator-port, --emulator-url, --declare KEY=VALUE, --declare-file FILE)

histories
  --seed N              fast-check seed (default: a fresh one, printed)
  --runs N              histories to run (default 100, within --seconds)
  --ops N               longest history, in operations (default 20)
  --seconds S           stop starting histories (and shrinking) after S seconds (default 60)
  --repeat N            search N times, with seeds S, S+1, … (S: --seed), each with the budget above,
                        and report each search (how often a target's bug is found: its detection rate)
  --path P              with --seed: replay fast-check's shrink path P of a printed counterexample
  --replay FILE         run the one history of a replay script (reports/${'history-counterexample.json'})
  --reports DIR         where history-summary.json and the counterexample go (default: reports)
  -h, --help            print this text and exit

Exit code 0 when every history passed, 1 when one failed, 2 when the run could not start.`;

/** Options of one history run. */
export interface HistoryOptions {
  target: TargetChoice;
  emulatorPort?: number;
  emulatorUrl?: string;
  declarations: Declarations;
  seed: number;
  /** Whether the seed was drawn for this run (printed so that a failure can be replayed). */
  freshSeed: boolean;
  runs: number;
  maxOps: number;
  seconds: number;
  /** Searches to run, with seeds `seed`, `seed + 1`, … (`--repeat`; default 1). */
  repeat: number;
  path?: string;
  replay?: string;
  reportsDir: string;
}

/** Parses the arguments of `history`; throws a UsageError on a mistake. */
export function parseHistoryArgs(args: readonly string[]): { kind: 'help' } | { kind: 'run'; options: HistoryOptions } {
  const values = parseKitArgs(args, {
    ...TARGET_OPTIONS,
    seed: { type: 'string' },
    runs: { type: 'string' },
    ops: { type: 'string' },
    seconds: { type: 'string' },
    repeat: { type: 'string' },
    path: { type: 'string' },
    replay: { type: 'string' },
  });
  if (values.help) return { kind: 'help' };
  const { target, declarations, ...emulator } = targetOptions(values);
  const given = integer('seed', values.seed as string | undefined, 0, 2 ** 31 - 1);
  const path = values.path as string | undefined;
  if (path !== undefined && (given === undefined || !/^\d+(:\d+)*$/.test(path))) throw new UsageError('--path replays a printed counterexample: give it with its --seed, as printed (digits and colons)');
  const replay = values.replay as string | undefined;
  return {
    kind: 'run',
    options: {
      target,
      ...emulator,
      declarations,
      seed: given ?? Math.floor(Math.random() * 2 ** 31),
      freshSeed: given === undefined,
      runs: integer('runs', values.runs as string | undefined, 1, 100_000) ?? 100,
      maxOps: integer('ops', values.ops as string | undefined, 1, 1000) ?? 20,
      seconds: integer('seconds', values.seconds as string | undefined, 1, 86_400) ?? 60,
      repeat: integer('repeat', values.repeat as string | undefined, 1, 1000) ?? 1,
      ...(path !== undefined ? { path } : {}),
      ...(replay !== undefined ? { replay } : {}),
      reportsDir: (values.reports as string | undefined) || 'reports',
    },
  };
}
