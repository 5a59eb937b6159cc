// Options of the gate engine and their validation at construction.
import type { RouteConfig } from '../protocol/types.ts';
import { DEFAULT_SERVICE_NAME } from '../protocol/constants.ts';
import type { Processor } from '../processor/processor.ts';
import type { Store } from '../stores/store.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { publishableKeyMode } from '../config/stripe-keys.ts';
import type { ErrorReporter } from './failures.ts';

/** Options of {@link createGate}. */
export interface GateOptions {
  /** Publishable key sent to clients in every challenge. */
  stripePublishableKey: string;
  /** HMAC key deriving client identifiers from card fingerprints; at least 32 characters. */
  serverSecret: string;
  store: Store;
  processor: Processor;
  /** Gated routes keyed `<METHOD> <path>`. */
  routes: Record<string, RouteConfig>;
  /** First words of every PaymentIntent description; default `credit402`. */
  serviceName?: string;
  /** Called with every store or processor failure (the gate still answers); default: console.error. */
  onError?: ErrorReporter;
}

const STORE_METHODS = ['deductBalance', 'addBalance', 'ensureClient', 'getClient', 'creditTopUp', 'close'] as const;
const PROCESSOR_METHODS = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;

function hasMethods(value: unknown, names: readonly string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

/** Validates everything but the routes; throws a Credit402ConfigError naming the broken rule. */
export function validateGateOptions(options: GateOptions): { serviceName: string; onError: ErrorReporter } {
  if (typeof options !== 'object' || options === null) {
    throw new Credit402ConfigError('ERR_ROUTES', 'options must be an object');
  }
  publishableKeyMode(options.stripePublishableKey);
  if (typeof options.serverSecret !== 'string' || options.serverSecret.length < 32) {
    throw new Credit402ConfigError('ERR_SERVER_SECRET', 'serverSecret must be a string of at least 32 characters (for example 32 random bytes in hex)');
  }
  if (!hasMethods(options.store, STORE_METHODS)) {
    throw new Credit402ConfigError('ERR_STORE', `store must implement ${STORE_METHODS.join(', ')} (see reference/stores/README.md)`);
  }
  if (!hasMethods(options.processor, PROCESSOR_METHODS)) {
    throw new Credit402ConfigError('ERR_PROCESSOR', `processor must implement ${PROCESSOR_METHODS.join(', ')}`);
  }
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  if (typeof serviceName !== 'string' || serviceName.trim().length === 0) {
    throw new Credit402ConfigError('ERR_SERVICE_NAME', 'serviceName must be a non-empty string');
  }
  const onError = options.onError ?? ((error: unknown, stage: string) => console.error(`credit402: ${stage} failed:`, error));
  return { serviceName, onError };
}
