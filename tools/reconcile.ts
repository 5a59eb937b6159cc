// `npm run reconcile -- [--dry-run] [--since ISO] [--config F] [--profile F] [--store K] [--stripe-api URL]`: credits lost top-ups.
import { parseArgs } from 'node:util';
import { Credit402ConfigError } from '../reference/config/config-error.ts';
import { StripeProcessor } from '../reference/processor/stripe-processor.ts';
import { formatReport, reconcile } from '../reference/reconcile/reconcile.ts';
import { buildStore } from '../reference/server/build-store.ts';
import { loadServerConfig } from '../reference/server/server-config.ts';

const USAGE = `usage: npm run reconcile -- [options]
  --dry-run          report succeeded top-ups the store has not credited, change nothing
  --since ISO        oldest PaymentIntent creation time (default: 30 days ago)
  --config FILE      the reference server's JSON configuration (store, keys, Stripe API)
  --profile FILE     a conformance profile
  --store KIND       memory | sqlite | redis
  --stripe-api URL   stripe | http://host:port of a Stripe API (the emulator)
Exit status: 0 when nothing needed crediting (or it was credited), 1 when a dry run found drift, 2 on errors.`;

const { values } = parseArgs({
  options: {
    'dry-run': { type: 'boolean' },
    since: { type: 'string' },
    config: { type: 'string' },
    profile: { type: 'string' },
    store: { type: 'string' },
    'stripe-api': { type: 'string' },
    help: { type: 'boolean' },
  },
});

async function main(): Promise<number> {
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since !== undefined && Number.isNaN(since.getTime())) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `--since must be a date, got ${values.since}`);
  const config = loadServerConfig({
    ...(values.profile ? { profilePath: values.profile } : {}),
    ...(values.config ? { configPath: values.config } : {}),
    env: { ...process.env, ...(values.store ? { CREDIT402_STORE: values.store } : {}) },
    overrides: values['stripe-api'] ? { stripeApi: values['stripe-api'] } : {},
  });
  if (config.stripeApi === 'embedded') {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'reconcile needs a real Stripe API: --stripe-api stripe (with STRIPE_SECRET_KEY) or the URL of a running emulator');
  }
  const api = config.stripeApi === 'stripe' ? undefined : new URL(config.stripeApi);
  const processor = new StripeProcessor({
    secretKey: config.stripeSecretKey,
    ...(api ? { api: { host: api.hostname, port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)), protocol: api.protocol === 'https:' ? 'https' : 'http' } } : {}),
  });
  const store = await buildStore(config.store);
  try {
    const report = await reconcile({ processor, store, dryRun: values['dry-run'] ?? false, ...(since ? { since } : {}) });
    console.log(formatReport(report));
    return report.dryRun && report.credited.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`credit402 reconcile: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  },
);
