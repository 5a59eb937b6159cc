// `npm run conformance -- [options]`: runs the credit402 conformance suite against a target (see harness/README.md).
import { readFileSync } from 'node:fs';
import { parseRunnerArgs, USAGE, UsageError } from './runner/cli-options.ts';
import { PROFILE_PATH, profileComment } from './runner/profile.ts';
import { runConformance } from './runner/run.ts';

async function main(): Promise<number> {
  const command = parseRunnerArgs(process.argv.slice(2));
  switch (command.kind) {
    case 'help':
      console.log(USAGE);
      return 0;
    case 'print-profile':
      console.error(profileComment());
      process.stdout.write(readFileSync(PROFILE_PATH, 'utf8'));
      return 0;
    case 'run':
      return runConformance(command.options);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    // Everything the run started is stopped; a handle left open by step code must not keep the process alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    console.error(error instanceof UsageError ? `conformance: ${error.message} (see --help)` : error);
    process.exitCode = 2;
  },
);
