// Self-test target (`--target-cmd`): follows the stripe402 source except in four places an outside implementer departed from it (see source-departures-target.ts).
import { runSelfTestTarget } from './run-self-test-target.ts';
import { startSourceDepartures } from './source-departures-target.ts';

await runSelfTestTarget('source-departures', startSourceDepartures);
