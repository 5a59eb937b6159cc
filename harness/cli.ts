#!/usr/bin/env node
// `credit402-conformance conformance|history|client|profile|coverage|compare`: the conformance kit's command line (see harness/README.md).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCoverage } from './coverage.ts';
import { runHistories } from './history/run.ts';
import { runCompare } from './report/compare.ts';
import { KIT, parseRunnerArgs, USAGE, UsageError } from './runner/cli-options.ts';
import { CLIENT_USAGE, parseClientArgs } from './runner/client-options.ts';
import { HISTORY_USAGE, parseHistoryArgs } from './runner/history-options.ts';
import { runClientConformance } from './runner/client-run.ts';
import { PROFILE_PATH, profileComment } from './runner/profile.ts';
import { runConformance } from './runner/run.ts';

const COMMANDS = `usage: ${KIT} <command> [options]

commands
  conformance   run the suite against a target: --target URL or --target-cmd "CMD" (--help for all options)
  history       drive generated histories against a target and check them against a ledger model:
                --target URL or --target-cmd "CMD" [--seed N] [--ops N] [--runs N] [--seconds S] (--help)
  client        run the client suite against an HTTP client through its driver: --client-cmd "CMD"
                (--help for all options; harness/docs/client-driver.md is the driver contract)
  profile       print the conformance profile a target must load (the reminder goes to stderr)
  coverage      print which scenario checks which requirement; --tests DIR (repeatable) adds the
                requirement IDs named in the titles of the vitest tests below DIR
  compare       put runs side by side in one HTML page: compare <reports dir>… --out matrix.html
                (implementations as columns, every requirement as a row, their levels on top)`;

function coverage(args: string[]): number {
  const { values } = parseArgs({ args, strict: true, options: { tests: { type: 'string', multiple: true } } });
  return runCoverage(values.tests ?? []);
}

/** A command's parsed arguments: its usage printed for --help, else the command run with its options. */
async function helpOrRun<O>(parsed: { kind: 'help' } | { kind: 'run'; options: O }, usage: string, run: (options: O) => Promise<number>): Promise<number> {
  if (parsed.kind === 'help') {
    console.log(usage);
    return 0;
  }
  return run(parsed.options);
}

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'conformance':
      return helpOrRun(parseRunnerArgs(rest), USAGE, runConformance);
    case 'history':
      return helpOrRun(parseHistoryArgs(rest), HISTORY_USAGE, (options) => runHistories(options));
    case 'client':
      return helpOrRun(parseClientArgs(rest), CLIENT_USAGE, runClientConformance);
    case 'profile':
      if (rest.length > 0) throw new UsageError(`profile takes no options; got ${rest.join(' ')}`);
      console.error(profileComment());
      process.stdout.write(readFileSync(PROFILE_PATH, 'utf8'));
      return 0;
    case 'coverage':
      return coverage(rest);
    case 'compare':
      return runCompare(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(COMMANDS);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${command}"; the commands are conformance, history, client, profile, coverage and compare`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything the run started is stopped; a handle left open by step code must not keep the process alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
    console.error(usage ? `${KIT}: ${(error as Error).message} (see --help)` : error);
    process.exitCode = 2;
  },
);
