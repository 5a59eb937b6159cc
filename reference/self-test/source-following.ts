// Self-test target (`--target-cmd`): follows the stripe402 source, deciding its open points unlike credit402 (see source-following-target.ts).
import { loadServerConfig } from '../compose/engine-config.ts';
import { startSourceFollowing } from './source-following-target.ts';

const profilePath = process.env.CREDIT402_PROFILE;
if (!profilePath) throw new Error('source-following: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd');
const config = loadServerConfig({ profilePath, env: process.env });
const target = await startSourceFollowing(config);
console.log(`source-following target listening on ${target.url} (Stripe API ${config.stripeApi})`);
const stop = (): void => void target.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
