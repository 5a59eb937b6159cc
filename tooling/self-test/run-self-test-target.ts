// The main of a self-test target started by the kit (`--target-cmd`): its configuration from CREDIT402_PROFILE, started, stopped on SIGTERM or SIGINT.
import { loadServerConfig, type ServerConfig } from 'credit402/server';

/** A started self-test target. */
interface StartedTarget {
  url: string;
  close(): Promise<void>;
}

/** Starts the target `name` with `start` on the profile's configuration, says where it listens, and stops it on a signal. */
export async function runSelfTestTarget(name: string, start: (config: ServerConfig) => Promise<StartedTarget>): Promise<void> {
  const profilePath = process.env.CREDIT402_PROFILE;
  if (!profilePath) throw new Error(`${name}: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd`);
  const config = loadServerConfig({ profilePath, env: process.env });
  const target = await start(config);
  console.log(`${name} target listening on ${target.url} (Stripe API ${config.stripeApi})`);
  const stop = (): void => void target.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
