// Self-test target (`--target-cmd`): the reference taking every latitude the strict level grants and the robust level removes (spec Appendix C): a webhook endpoint that settles nothing, no payment lock.
import { pathToFileURL } from 'node:url';
import { serveWith } from './serve-with.ts';

/** The latitudes of Appendix C granted by strict and removed by robust that a robustness run sees, each with how this target takes it. */
export const EXERCISED = {
  'L-41': 'its webhook endpoint acknowledges every delivery and credits nothing: a top-up whose credit failed is credited only by the retry (serve-with.ts, webhook: ignore)',
  'L-42': 'its webhook endpoint acknowledges refunds and disputes and leaves the balances as they are (serve-with.ts, webhook: ignore)',
  'L-43': 'a store without locks: concurrent first payments of one card each charge and are each credited (serve-with.ts, paymentLock: false)',
} as const;

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE; declare `robustness=true` to be judged on it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveWith('strict-freedom', { paymentLock: false, webhook: 'ignore' });
