// The kit's client driver for credit402/client (harness/docs/client-driver.md) with `--mutant NAME`: the shipped driver (`credit402 client-driver`) driving a mutant client.
// Run: tsx --conditions=credit402-source tooling/self-test/client-driver.ts [--mutant NAME]
import { parseArgs } from 'node:util';
import { runClientDriver } from 'credit402/internal/client/driver';
import { mutantHooks } from './client-driver-mutants.ts';
import { clientMutant } from './client-mutants.ts';

const { values } = parseArgs({ options: { mutant: { type: 'string' } } });
const { mutant } = values;
if (mutant !== undefined && clientMutant(mutant) === undefined) {
  process.stderr.write(`client-driver: unknown mutant ${mutant}\n`);
  process.exit(2);
}
await runClientDriver({ stateDir: process.env.CREDIT402_CLIENT_STATE || undefined, hooks: () => (mutant === undefined ? {} : mutantHooks(mutant)) });
process.exit(0);
