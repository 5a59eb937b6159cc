// Self-test target: the reference gate whose Stripe client retries N times and quotes its customer search its own way (`stripe-client.ts N [single|double]`).
import { serveWith } from './serve-with.ts';

const [retriesArg = '0', quote = 'single'] = process.argv.slice(2);
const retries = Number(retriesArg);
if (!Number.isInteger(retries) || retries < 0) throw new Error(`stripe-client: the retry count must be a non-negative integer, got ${retriesArg}`);
if (quote !== 'single' && quote !== 'double') throw new Error(`stripe-client: the quote must be single or double, got ${quote}`);
await serveWith(`stripe-client (${retries} retries, ${quote} quotes)`, { stripe: { maxNetworkRetries: retries, customerSearchQuote: quote } });
