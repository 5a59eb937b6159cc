// What a production configuration must never carry: the conformance control routes with live keys or Stripe itself, a
// serverSecret published in this repository with live keys. Checked by the server's and the gateway's loaders and at start.
import { Credit402ConfigError } from './config-error.ts';
import { liveKeyFields, mayReachStripe } from './live-keys.ts';

/**
 * serverSecret values published in this repository: the reference server's embedded default
 * (reference/compose/default-config.json), the conformance profile's (harness/conformance-profile.json), the example of
 * the README, docs and examples/, the spec's test vectors (spec/protocol.md A.6, schemas/vectors.json) and the package
 * test's. Anyone can derive every client identifier (a bearer credential, CR-7.3) from them, so they serve test mode
 * only. Compared by {@link isPublicServerSecret}: a copy with other surrounding whitespace or letter case is one of them.
 */
export const PUBLIC_SERVER_SECRETS: readonly string[] = [
  'credit402-reference-server-secret-change-me-0123456789',
  'credit402-conformance-server-secret-do-not-use-in-production',
  'example-server-secret-change-me-0123456789',
  'credit402-example-server-secret-0123456789',
  'credit402-example-server-secret-9876543210',
  'a-server-secret-of-at-least-32-characters',
];

/** The published secrets as {@link isPublicServerSecret} compares them. */
const PUBLIC_SECRETS_FOLDED = new Set(PUBLIC_SERVER_SECRETS.map((secret) => secret.toLowerCase()));

/** Whether `secret` is one of {@link PUBLIC_SERVER_SECRETS}, once surrounding whitespace is trimmed and letter case folded. */
export function isPublicServerSecret(secret: unknown): boolean {
  return typeof secret === 'string' && PUBLIC_SECRETS_FOLDED.has(secret.trim().toLowerCase());
}

/** The fields the guards read. */
interface GuardedConfig {
  stripeSecretKey?: unknown;
  stripePublishableKey?: unknown;
  stripeApi: string;
  serverSecret?: unknown;
  conformanceControl?: unknown;
}

/**
 * Throws ERR_CONFORMANCE_CONTROL when the conformance control routes are asked for (`conformanceControl`,
 * `--conformance-control`, CREDIT402_CONFORMANCE_CONTROL) with a live key or with Stripe itself as the Stripe API
 * (`stripe`, or any URL on stripe.com, however its host is spelled: {@link mayReachStripe}):
 * those routes let anyone make the store fail for any client and read its records, and only a conformance run against
 * the emulator (embedded, or by URL) may have them.
 */
export function assertConformanceControlAllowed(config: GuardedConfig): void {
  if (config.conformanceControl !== true) return;
  const live = liveKeyFields(config);
  const reasons = [
    ...(live.length > 0 ? [`${live.join(' and ')} ${live.length > 1 ? 'are live keys' : 'is a live key'}`] : []),
    ...(mayReachStripe(config.stripeApi) ? [`the Stripe API is Stripe itself (stripeApi ${JSON.stringify(config.stripeApi)}), not the emulator`] : []),
  ];
  if (reasons.length === 0) return;
  throw new Credit402ConfigError(
    'ERR_CONFORMANCE_CONTROL',
    `conformanceControl (--conformance-control, CREDIT402_CONFORMANCE_CONTROL) mounts routes that let anyone make the store fail for any client and read its records: it is for conformance runs against the Stripe emulator only, and ${reasons.join(' and ')}; turn it off (unset CREDIT402_CONFORMANCE_CONTROL)`,
  );
}

/**
 * Throws ERR_SERVER_SECRET when `serverSecret` is one of {@link PUBLIC_SERVER_SECRETS} (give or take surrounding
 * whitespace and letter case) outside test mode (a live key is configured): every client identifier would be
 * derivable by anyone. Test keys keep the examples and the conformance runs working with the published secrets.
 */
export function assertServerSecretNotPublic(config: Omit<GuardedConfig, 'stripeApi' | 'conformanceControl'>): void {
  if (typeof config.serverSecret !== 'string' || !isPublicServerSecret(config.serverSecret)) return;
  const live = liveKeyFields(config);
  if (live.length === 0) return;
  throw new Credit402ConfigError(
    'ERR_SERVER_SECRET',
    `serverSecret is a public example published with credit402 (${JSON.stringify(config.serverSecret)}), and ${live.join(' and ')} ${live.length > 1 ? 'are live keys' : 'is a live key'}: anyone could derive every client identifier from it; set CREDIT402_SERVER_SECRET (or serverSecret in --config, or in the options) to a secret of your own, for example the output of \`openssl rand -hex 32\``,
  );
}

/** Both guards: what the reference server's and the gateway's configuration loaders, and the reference server's start, check. */
export function assertProductionSafe(config: GuardedConfig): void {
  assertConformanceControlAllowed(config);
  assertServerSecretNotPublic(config);
}
