// `credit402 reconcile [--dry-run] [--since ISO] [--config F] [--profile F] [--store K] [--stripe-api URL]`: credits lost top-ups.
import { parseArgs } from 'node:util';
import { Credit402ConfigError } from '../config/config-error.ts';
import { stripeProcessor } from '../credit402.ts';
import { stripeApiBase } from '../processor/stripe-processor.ts';
import { formatReport, reconcile } from '../reconcile/reconcile.ts';
import { buildStore } from '../compose/build-store.ts';
import { loadServerConfig } from '../compose/engine-config.ts';
import { configSources, SOURCE_FLAGS } from './command-options.ts';

const USAGE = `usage: credit402 reconcile [options]
  --dry-run          report succeeded top-ups the store has not credited, change nothing
  --since ISO        oldest PaymentIntent creation time (default: 30 days ago)
  --config FILE      the reference server's JSON configuration (store, keys, Stripe API)
  --profile FILE     a conformance profile
  --store KIND       memory | sqlite | redis
  --stripe-api URL   stripe | http://host:port of a Stripe API (the emulator)
Exit status: 0 when nothing needed crediting (or it was credited), 1 when a dry run found drift, 2 on errors.`;

async function reconcileOnce(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...SOURCE_FLAGS,
      'dry-run': { type: 'boolean' },
      since: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since !== undefined && Number.isNaN(since.getTime())) throw new Credit402ConfigError('ERR_SERVER_CONFIG', `--since must be a date, got ${values.since}`);
  const config = loadServerConfig({ ...configSources(values), overrides: values['stripe-api'] ? { stripeApi: values['stripe-api'] } : {} });
  if (config.stripeApi === 'embedded') {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', 'reconcile needs a real Stripe API: --stripe-api stripe (with STRIPE_SECRET_KEY) or the URL of a running emulator');
  }
  const processor = stripeProcessor({
    stripeSecretKey: config.stripeSecretKey,
    customerMetadataKey: config.customerMetadataKey,
    stripeTimeoutMs: config.stripeTimeoutMs,
    ...(config.stripeApi === 'stripe' ? {} : { stripeApi: stripeApiBase(config.stripeApi) }),
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

/** Runs one reconciliation; resolves to the exit code (0 nothing to credit or credited, 1 drift in a dry run, 2 errors). */
export async function reconcileCommand(args: string[]): Promise<number> {
  try {
    return await reconcileOnce(args);
  } catch (error: unknown) {
    console.error(`credit402 reconcile: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
}
