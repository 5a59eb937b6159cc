// Serves the reference gateway with one bug, built from its public options (a doctored store, a forwarding option): a deliberately broken gateway target.
import { parseArgs } from 'node:util';
import { loadGatewayConfig, startGateway, type GatewayConfig } from 'credit402/gateway';
import { MemoryStore, type Store } from 'credit402/stores';

/** The gateway's upstream timeout: the kit's stalled upstream is answered 504 well within the kit's wait (`--upstream-timeout-ms` sets another). */
const UPSTREAM_TIMEOUT_MS = 3000;

/** The upstream timeout the mutant's command line asks for (`--upstream-timeout-ms N`, e.g. short for the history runner), else the default. */
function upstreamTimeoutMs(): number {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { 'upstream-timeout-ms': { type: 'string' } } });
  const asked = values['upstream-timeout-ms'];
  if (asked === undefined) return UPSTREAM_TIMEOUT_MS;
  const ms = Number(asked);
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`--upstream-timeout-ms takes a positive whole number of milliseconds, got ${asked}`);
  return ms;
}

/** What a gateway mutant changes: gateway options (e.g. `forwardPaymentHeader`) and a doctored store. */
export interface GatewayMutation {
  options?: Partial<GatewayConfig>;
  wrapStore?: (store: Store) => Store;
}

/**
 * Starts the mutant as a conformance target of the `gateway` capability: profile from CREDIT402_PROFILE, port from
 * PORT, Stripe API from STRIPE_API_BASE, upstream from CREDIT402_UPSTREAM_URL (what `--target-cmd` provides with
 * `--declare capabilities=gateway`), a fresh memory store, the upstream timeout of `--upstream-timeout-ms` (default 3000 ms).
 */
export async function serveGatewayMutant(name: string, mutation: GatewayMutation): Promise<void> {
  const profilePath = process.env.CREDIT402_PROFILE;
  const upstream = process.env.CREDIT402_UPSTREAM_URL;
  if (!profilePath || !upstream) throw new Error(`mutant ${name}: CREDIT402_PROFILE or CREDIT402_UPSTREAM_URL is not set; start it with --target-cmd and --declare capabilities=gateway`);
  const config = loadGatewayConfig({
    profilePath,
    env: process.env,
    overrides: { upstream, host: '127.0.0.1', upstreamTimeoutMs: upstreamTimeoutMs(), ...mutation.options },
  });
  const memory = new MemoryStore();
  const running = await startGateway(config, { store: mutation.wrapStore ? mutation.wrapStore(memory) : memory });
  console.log(`mutant ${name} listening on ${running.url} in front of ${upstream} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void running.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
