// Self-test target (`--target-cmd`): follows the stripe402 source except in four places an outside implementer departed from it (see source-departures-target.ts).
import { loadServerConfig } from '../compose/engine-config.ts';
import { startSourceDepartures } from './source-departures-target.ts';

const profilePath = process.env.CREDIT402_PROFILE;
if (!profilePath) throw new Error('source-departures: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd');
const config = loadServerConfig({ profilePath, env: process.env });
const target = await startSourceDepartures(config);
console.log(`source-departures target listening on ${target.url} (Stripe API ${config.stripeApi})`);
const stop = (): void => void target.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
