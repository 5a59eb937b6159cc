// Configuration fields several store descriptors share: the legacy currency from the environment and the log retention.
import { Credit402ConfigError } from '../config/config-error.ts';

/** `legacyCurrency` from CREDIT402_LEGACY_CURRENCY, when set. */
export function legacyCurrencyFromEnv(env: NodeJS.ProcessEnv): { legacyCurrency?: string } {
  return env.CREDIT402_LEGACY_CURRENCY ? { legacyCurrency: env.CREDIT402_LEGACY_CURRENCY } : {};
}

/** `store.transactionTtlSeconds`, the `exclusiveFields` entry of the stores whose log records expire by it. */
export const TRANSACTION_TTL_FIELD = { key: 'transactionTtlSeconds' } as const;

/** `store.transactionTtlSeconds`: how long log records are kept, a positive whole number of seconds. */
export function checkTransactionTtl(store: Record<string, unknown>): void {
  const ttl = store.transactionTtlSeconds;
  if (ttl === undefined) return;
  if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl <= 0) {
    throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.transactionTtlSeconds must be a positive whole number of seconds (default 7776000, 90 days), got ${String(ttl)}`);
  }
}
