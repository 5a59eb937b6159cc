// Options of the gate engine and their validation at construction.
import type { RouteConfig } from '../protocol/types.ts';
import { DEFAULT_SERVICE_NAME } from '../protocol/constants.ts';
import type { Processor } from '../processor/processor.ts';
import type { Store } from '../stores/store.ts';
import { storeProblem } from '../stores/capabilities.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { publishableKeyMode } from '../config/stripe-keys.ts';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/store-deadline.ts';
import { createErrorLog } from './error-log.ts';
import type { ErrorReporter } from './failures.ts';
import { validateCors, type CorsOptions, type CorsPolicy } from './cors.ts';
import { validateRateLimit, type DEFAULT_NEW_PAYMENT_RATE_LIMIT, type NewPaymentRateLimit } from './rate-limit.ts';
import { validateHooks, type GateHooks } from './events.ts';
import { paymentLockLeaseMs } from './payment-lock.ts';

/** Options of {@link createGate}. */
export interface GateOptions {
  /** Publishable key sent to clients in every challenge. */
  stripePublishableKey: string;
  /** HMAC key deriving client identifiers from card fingerprints; at least 32 bytes in UTF-8 (32 ASCII characters). */
  serverSecret: string;
  store: Store;
  processor: Processor;
  /**
   * The route table: gated routes keyed `<METHOD> <path>`, where the path may be a pattern (`/api/users/:id`,
   * `/files/*`; spec CR-4.11). Optional when every gated route is priced where the router declares it (`defineRoute`).
   */
  routes?: Record<string, RouteConfig>;
  /** First words of every PaymentIntent description; default `credit402`. */
  serviceName?: string;
  /**
   * Called with every store or processor failure (the gate still answers); default: one line per failure on
   * console.error, with a stack trace per kind of failure at most once a minute (`createErrorLog`).
   */
  onError?: ErrorReporter;
  /**
   * Deadline of every store call the gate makes, in ms; default 500. Past it the request is answered 503 at once,
   * and since the call may still take effect, the message of a deduction or credit says its outcome is unknown.
   */
  storeTimeoutMs?: number;
  /**
   * How long a first payment waits, in ms, while another payment of the same card holds the per-client
   * payment lock; then it answers 503. Default 10000. Used only when the store has locks.
   */
  lockWaitMs?: number;
  /**
   * Lease of the per-client payment lock in ms, longer than the slowest payment path. Default: derived from the
   * processor's `longestPaymentMs` and `storeTimeoutMs` (`paymentLockLeaseMs`; with the Stripe processor, 3 requests ×
   * (2 × `stripeTimeoutMs` + 0.5 s) + 6 × `storeTimeoutMs` + 1 s: 125.5 s with the default timeouts, 35.5 s with
   * `stripeTimeoutMs` 5000), else 60000.
   */
  lockTtlMs?: number;
  /**
   * How long a deduction made under a payload's `requestId` is kept, in ms, so that a retry of that request is
   * served without a second deduction (CR-6.9); default 300000 (5 minutes). Far longer than a client's retries.
   */
  requestIdTtlMs?: number;
  /**
   * Give the price back to the balance when the handler answers 5xx or throws (once per request);
   * default false. Outside conformance (CR-4.7); conformance runs leave it off.
   */
  refundOnHandlerError?: boolean;
  /**
   * Limit of new-payment attempts (a `paymentMethodId` and no spendable `clientId`), per client address and/or
   * global, answered 429 with `Retry-After` before any processor call. Default {@link DEFAULT_NEW_PAYMENT_RATE_LIMIT}:
   * 60 new payments that fail on the payer's side (declined, unknown payment method) per address and 600 in all, per
   * 10 minutes, the global window refusing only addresses that failed themselves (a payer is never refused for other
   * addresses' failures); payments that succeed never count. `false` turns it off. Counted in this process's memory:
   * each process of a cluster applies its own limit. The address is `GateRequest.clientAddress` (behind a proxy, see
   * the framework's trust proxy setting).
   */
  newPaymentRateLimit?: NewPaymentRateLimit | false;
  /**
   * Lets browsers of these origins call the gated routes: gated answers expose `payment-required` and
   * `payment-response`, and preflights of gated paths allow the `payment` header. Off by default.
   */
  cors?: CorsOptions;
  /**
   * Lifecycle events (challenge, charge, credit, deduction, refund, payment_error, store_unavailable, store_call) for
   * logs and metrics (`createPrometheusHooks` of `credit402/metrics`). `onEvent` is called synchronously inside
   * try/catch: what it throws goes to `onError` (stage `hooks`) and never changes the answer; it must return quickly.
   */
  hooks?: GateHooks;
}

/** Options after validation, with defaults applied. */
interface ResolvedGateOptions {
  serviceName: string;
  onError: ErrorReporter;
  /** The payment lock's timing, or undefined when the store has no locks. */
  lock: { waitMs: number; ttlMs: number } | undefined;
  refundOnHandlerError: boolean;
  /** Deadline of every store call, in ms. */
  storeTimeoutMs: number;
  /** How long a deduction is kept under its request id, in ms. */
  requestIdTtlMs: number;
  /** The new-payment rate limit, or undefined when it is off. */
  newPaymentRateLimit: NewPaymentRateLimit | undefined;
  cors: CorsPolicy | undefined;
  hooks: GateHooks | undefined;
}

/** Default of {@link GateOptions.requestIdTtlMs}: 5 minutes. */
const DEFAULT_REQUEST_ID_TTL_MS = 300_000;

/**
 * Smallest `serverSecret`, counted in UTF-8 bytes: those bytes are the HMAC-SHA256 key, and RFC 2104 discourages
 * keys shorter than the 32-byte hash output (CR-2.8, CR-13.34). 32 ASCII characters; fewer non-ASCII ones.
 */
export const SERVER_SECRET_MIN_BYTES = 32;

const PROCESSOR_METHODS = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;

function hasMethods(value: unknown, names: readonly string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

function validateStore(store: unknown): void {
  const problem = storeProblem(store);
  if (problem !== undefined) throw new Credit402ConfigError('ERR_STORE', problem);
}

function milliseconds(value: unknown, fallback: number, name: string, min: 0 | 1, code: 'ERR_LOCK' | 'ERR_STORE' | 'ERR_REQUEST_ID_TTL' = 'ERR_LOCK'): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isSafeInteger(resolved) || resolved < min) {
    throw new Credit402ConfigError(code, `${name} must be an integer number of milliseconds of at least ${min}, got ${String(value)}`);
  }
  return resolved;
}

/** The processor's `longestPaymentMs`, undefined when it does not say; throws ERR_PROCESSOR when it is not a positive number of ms. */
function longestPaymentOf(processor: Processor): number | undefined {
  const { longestPaymentMs } = processor;
  if (longestPaymentMs === undefined) return undefined;
  if (typeof longestPaymentMs !== 'number' || !Number.isFinite(longestPaymentMs) || longestPaymentMs <= 0 || longestPaymentMs > MAX_LONGEST_PAYMENT_MS) {
    throw new Credit402ConfigError('ERR_PROCESSOR', `processor.longestPaymentMs must be a positive number of milliseconds up to ${MAX_LONGEST_PAYMENT_MS}, got ${String(longestPaymentMs)}`);
  }
  return longestPaymentMs;
}

/** The longest `longestPaymentMs` a processor may declare: one day. */
const MAX_LONGEST_PAYMENT_MS = 24 * 60 * 60 * 1000;

/** Validates everything but the routes; throws a Credit402ConfigError naming the broken rule. */
export function validateGateOptions(options: GateOptions): ResolvedGateOptions {
  if (typeof options !== 'object' || options === null) {
    throw new Credit402ConfigError('ERR_ROUTES', 'options must be an object');
  }
  publishableKeyMode(options.stripePublishableKey);
  if (typeof options.serverSecret !== 'string' || Buffer.byteLength(options.serverSecret, 'utf8') < SERVER_SECRET_MIN_BYTES) {
    throw new Credit402ConfigError(
      'ERR_SERVER_SECRET',
      `serverSecret must be a string of at least ${SERVER_SECRET_MIN_BYTES} bytes in UTF-8, the HMAC key (for example 32 random bytes in hex)`,
    );
  }
  validateStore(options.store);
  if (!hasMethods(options.processor, PROCESSOR_METHODS)) {
    throw new Credit402ConfigError('ERR_PROCESSOR', `processor must implement ${PROCESSOR_METHODS.join(', ')}`);
  }
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  if (typeof serviceName !== 'string' || serviceName.trim().length === 0) {
    throw new Credit402ConfigError('ERR_SERVICE_NAME', 'serviceName must be a non-empty string');
  }
  const onError = options.onError ?? createErrorLog();
  const storeTimeoutMs = milliseconds(options.storeTimeoutMs, DEFAULT_STORE_TIMEOUT_MS, 'storeTimeoutMs', 1, 'ERR_STORE');
  const waitMs = milliseconds(options.lockWaitMs, 10_000, 'lockWaitMs', 0);
  const ttlMs = milliseconds(options.lockTtlMs, paymentLockLeaseMs(longestPaymentOf(options.processor), storeTimeoutMs), 'lockTtlMs', 1);
  const refundOnHandlerError = options.refundOnHandlerError ?? false;
  if (typeof refundOnHandlerError !== 'boolean') {
    throw new Credit402ConfigError('ERR_REFUND_ON_HANDLER_ERROR', 'refundOnHandlerError must be true or false');
  }
  const requestIdTtlMs = milliseconds(options.requestIdTtlMs, DEFAULT_REQUEST_ID_TTL_MS, 'requestIdTtlMs', 1, 'ERR_REQUEST_ID_TTL');
  const lock = options.store.acquireLock ? { waitMs, ttlMs } : undefined;
  const newPaymentRateLimit = validateRateLimit(options.newPaymentRateLimit);
  const cors = validateCors(options.cors);
  const hooks = validateHooks(options.hooks);
  return { serviceName, onError, lock, refundOnHandlerError, storeTimeoutMs, requestIdTtlMs, newPaymentRateLimit, cors, hooks };
}
