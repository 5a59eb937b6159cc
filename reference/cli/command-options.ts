// The flags the commands share: where the configuration comes from and, for the commands that listen, where and what they serve.
import type { ParseArgsConfig } from 'node:util';
import { parseTrustProxy, type TrustProxy } from '../adapters/client-address.ts';

type Flags = NonNullable<ParseArgsConfig['options']>;

/** The flags of every command that loads the engine's configuration: its files, its store and its Stripe API. */
export const SOURCE_FLAGS = {
  profile: { type: 'string' },
  config: { type: 'string' },
  store: { type: 'string' },
  'stripe-api': { type: 'string' },
  help: { type: 'boolean' },
} as const satisfies Flags;

/** The flags of the commands that listen (`serve`, `gateway`). */
export const LISTENER_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'conformance-control': { type: 'boolean' },
  'metrics-path': { type: 'string' },
  'trust-proxy': { type: 'string' },
} as const satisfies Flags;

/** What {@link SOURCE_FLAGS} and {@link LISTENER_FLAGS} parse to. */
interface SharedValues {
  profile?: string;
  config?: string;
  store?: string;
  'stripe-api'?: string;
  port?: string;
  host?: string;
  'conformance-control'?: boolean;
  'metrics-path'?: string;
  'trust-proxy'?: string;
}

/** Where a configuration loader reads from: the files the flags name, and the environment. */
export interface ConfigSources {
  profilePath?: string;
  configPath?: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The configuration's sources: `--profile` and `--config`, and the environment with `--store` as `CREDIT402_STORE`
 * and each of `variables` that is set (flags that act as their variables, so that a store's own settings from the
 * environment still apply).
 */
export function configSources(values: SharedValues, variables: Readonly<Record<string, string | undefined>> = {}): ConfigSources {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries({ CREDIT402_STORE: values.store, ...variables })) if (value) env[name] = value;
  const sources: ConfigSources = { env };
  if (values.profile) sources.profilePath = values.profile;
  if (values.config) sources.configPath = values.config;
  return sources;
}

/** The overrides {@link LISTENER_FLAGS} and `--stripe-api` set, as fields of the server's and the gateway's configuration. */
export function listenerOverrides(values: SharedValues): { port?: number; host?: string; stripeApi?: string; conformanceControl?: true; metricsPath?: string; trustProxy?: TrustProxy } {
  const out: ReturnType<typeof listenerOverrides> = {};
  if (values.port !== undefined) out.port = Number(values.port);
  if (values.host !== undefined) out.host = values.host;
  if (values['stripe-api'] !== undefined) out.stripeApi = values['stripe-api'];
  if (values['conformance-control'] === true) out.conformanceControl = true;
  if (values['metrics-path'] !== undefined) out.metricsPath = values['metrics-path'];
  if (values['trust-proxy'] !== undefined) out.trustProxy = parseTrustProxy(values['trust-proxy']);
  return out;
}
