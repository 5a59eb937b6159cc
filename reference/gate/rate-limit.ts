// Rate limit of the new-payment path: fixed windows per client address and for the whole process (refusing only addresses that failed), in memory.
import { isIPv4, isIPv6 } from 'node:net';
import { Credit402ConfigError } from '../config/config-error.ts';
import { definedFields } from '../config/defined-fields.ts';
import { PaymentError } from '../processor/processor.ts';
import type { RespondDecision } from './decision.ts';
import { gotNoAnswer } from './failures.ts';
import { respond } from './responses.ts';

/** At most `max` new-payment attempts per `windowMs`. */
interface RateWindow {
  max: number;
  windowMs: number;
}

/** What a window counts: every new-payment attempt, or only those that fail on the payer's side. */
export type RateCount = 'attempts' | 'failures';

/**
 * Option `newPaymentRateLimit` of the gate: limits requests that would go down the new-payment path (a
 * `paymentMethodId` and no spendable `clientId`), checked before any processor call and answered 429. Absent: the
 * {@link DEFAULT_NEW_PAYMENT_RATE_LIMIT}; `false`: off. Counters live in this process's memory: several processes
 * behind a balancer each apply their own limit.
 */
export interface NewPaymentRateLimit {
  /**
   * Per client address (`GateRequest.clientAddress`: Fastify's `request.ip` and Express's `req.ip`, which follow the
   * framework's `trustProxy` / `trust proxy` setting; on `node:http` the socket's peer, or the `clientAddress` the
   * application gives, see `createClientAddressReader`). IPv6 grouped by /64; requests without one share one bucket.
   * Behind a proxy or load balancer that is not trusted, every client has the proxy's address and shares its bucket.
   */
  perAddress?: RateWindow;
  /**
   * All client addresses together: a brake on card testing spread over many addresses that never locks out a payer.
   * Once `max` attempts are counted in the window (under `failures`: attempts running or failed on the payer's side),
   * it refuses only the addresses that have one of their own counted in it (under `failures`: a failure on the
   * payer's side; under `attempts`: any attempt); an address with none goes on, to its own `perAddress` limit. Past
   * the global max, each further address costs the processor one failed attempt before it waits for the window: spread
   * card testing needs one address per card, and nobody is refused for what other addresses did.
   */
  global?: RateWindow;
  /**
   * `attempts` (the default of a configured limit): every new-payment attempt counts. `failures`: an attempt counts
   * while it runs (so a burst is bounded too) and stays counted only when it fails on the payer's side: a declined
   * card (`card_declined`), or a payment method the processor refused (unknown, not a card, `requires_action`; any
   * `payment_failed` but those without an answer, 5xx, 429, 401 or 403, which are the processor's or the operator's).
   * Payments that succeed, or are served from a balance, never count.
   */
  counts?: RateCount;
}

/**
 * The limit when the option is absent: 60 failed new payments per client address and 600 for all addresses together,
 * per 10 minutes and per process, counting failures only. It never refuses a client whose payments succeed (a
 * stateless client paying with its card on every request included), nor an address that has not failed (the global
 * window refuses only addresses with a failure of their own), yet an address trying unknown payment methods or stolen
 * cards costs at most 60 processor calls per 10 minutes, and once 600 have failed, at most one (was: one per request,
 * unbounded).
 */
export const DEFAULT_NEW_PAYMENT_RATE_LIMIT: Readonly<NewPaymentRateLimit> = Object.freeze({
  perAddress: Object.freeze({ max: 60, windowMs: 600_000 }),
  global: Object.freeze({ max: 600, windowMs: 600_000 }),
  counts: 'failures',
});

/** The outcome of one attempt: allowed (`settle` watches it), or refused with the seconds until the window that refused it resets. */
type RateVerdict = { allowed: true; settle<T>(attempt: Promise<T>): Promise<T> } | { allowed: false; retryAfterSeconds: number };

/** Decides whether a new-payment attempt may go on; `hit` counts it when it does. */
export interface RateLimiter {
  /** Counts an attempt, or refuses it. An allowed attempt's promise goes through `settle`, which uncounts it unless it counts. */
  hit(clientAddress: string | undefined, now?: number): RateVerdict;
}

/** The error code of a refused attempt (proposed addition to the closed list of CR-8.3). */
const RATE_LIMITED = 'rate_limited';
export const RATE_LIMITED_MESSAGE = 'Too many payment attempts; retry after the number of seconds in Retry-After. Nothing was charged.';

const MAX_WINDOW_MS = 24 * 60 * 60 * 1000;

function checkWindow(value: unknown, name: string): RateWindow | undefined {
  if (value === undefined) return undefined;
  const window = value as Partial<RateWindow> | null;
  if (typeof window !== 'object' || window === null
    || typeof window.max !== 'number' || !Number.isSafeInteger(window.max) || window.max < 1
    || typeof window.windowMs !== 'number' || !Number.isSafeInteger(window.windowMs) || window.windowMs < 1 || window.windowMs > MAX_WINDOW_MS) {
    throw new Credit402ConfigError(
      'ERR_RATE_LIMIT',
      `newPaymentRateLimit.${name} must be { max, windowMs } with max an integer of at least 1 and windowMs an integer from 1 to ${MAX_WINDOW_MS}, got ${JSON.stringify(value)}`,
    );
  }
  return { max: window.max, windowMs: window.windowMs };
}

/** Validates the option: the {@link DEFAULT_NEW_PAYMENT_RATE_LIMIT} when absent, undefined when off (`false`, or no window). Throws a Credit402ConfigError `ERR_RATE_LIMIT`. */
export function validateRateLimit(value: unknown): NewPaymentRateLimit | undefined {
  if (value === undefined) return DEFAULT_NEW_PAYMENT_RATE_LIMIT;
  if (value === false) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Credit402ConfigError('ERR_RATE_LIMIT', 'newPaymentRateLimit must be false (off) or an object { perAddress?, global?, counts? }');
  }
  const unknown = Object.keys(value).find((key) => key !== 'perAddress' && key !== 'global' && key !== 'counts');
  if (unknown !== undefined) throw new Credit402ConfigError('ERR_RATE_LIMIT', `newPaymentRateLimit has an unknown key ${unknown}`);
  const { perAddress, global, counts } = value as Record<string, unknown>;
  if (counts !== undefined && counts !== 'attempts' && counts !== 'failures') {
    throw new Credit402ConfigError('ERR_RATE_LIMIT', `newPaymentRateLimit.counts must be "attempts" or "failures", got ${JSON.stringify(counts)}`);
  }
  const resolved = { perAddress: checkWindow(perAddress, 'perAddress'), global: checkWindow(global, 'global') };
  if (resolved.perAddress === undefined && resolved.global === undefined) return undefined;
  return definedFields({ ...resolved, counts });
}

/** The bucket of an address: IPv4-mapped IPv6 as IPv4, other IPv6 by its /64 prefix (one host usually holds a whole /64). */
export function addressBucket(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(address)) return address;
  const [scoped = ''] = address.split('%');
  const [head = '', tail = ''] = scoped.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') && tail !== '' ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

interface Counter {
  start: number;
  count: number;
}

/** A counted attempt: its bucket and the start of the window it was counted in. */
interface Taken {
  key: string;
  start: number;
}

class FixedWindow {
  private readonly counters = new Map<string, Counter>();
  private lastSweep = 0;
  constructor(private readonly window: RateWindow) {}

  /** Counts an attempt and returns where; or, when this key's window is full, the seconds until it resets. */
  take(key: string, now: number): Taken | number {
    this.sweep(now);
    let counter = this.counters.get(key);
    if (counter === undefined || now - counter.start >= this.window.windowMs) {
      counter = { start: now, count: 0 };
      this.counters.set(key, counter);
    }
    if (counter.count >= this.window.max) return Math.max(1, Math.ceil((counter.start + this.window.windowMs - now) / 1000));
    counter.count++;
    return { key, start: counter.start };
  }

  /** Uncounts an attempt: one another window refused, or one that does not count; nothing once its window has passed. */
  untake(taken: Taken): void {
    const counter = this.counters.get(taken.key);
    if (counter && counter.start === taken.start && counter.count > 0) counter.count--;
  }

  /** Drops expired counters once a window, so memory is bounded by the addresses seen in one window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.window.windowMs) return;
    this.lastSweep = now;
    for (const [key, counter] of this.counters) if (now - counter.start >= this.window.windowMs) this.counters.delete(key);
  }
}

/**
 * The global window: every address's attempts counted together, and the addresses that have one kept in it (a
 * failure on the payer's side, or any attempt when every attempt counts). When it is full it refuses only those.
 */
class SharedWindow {
  private start = Number.NEGATIVE_INFINITY;
  private count = 0;
  private readonly kept = new Set<string>();
  constructor(private readonly window: RateWindow) {}

  /** Counts an attempt of `key`; or, when the window is full and `key` has an attempt kept in it, the seconds until it resets. */
  take(key: string, now: number): Taken | number {
    if (now - this.start >= this.window.windowMs) {
      this.start = now;
      this.count = 0;
      this.kept.clear();
    }
    if (this.count >= this.window.max && this.kept.has(key)) return Math.max(1, Math.ceil((this.start + this.window.windowMs - now) / 1000));
    this.count++;
    return { key, start: this.start };
  }

  /** Marks the address of a counted attempt as one that has an attempt kept in this window. */
  keep(taken: Taken): void {
    if (taken.start === this.start) this.kept.add(taken.key);
  }

  /** Uncounts an attempt: one another window refused, or one that does not count; nothing once its window has passed. */
  untake(taken: Taken): void {
    if (taken.start === this.start && this.count > 0) this.count--;
  }
}

/** HTTP statuses of a processor answer that are the processor's or the operator's doing, not the payer's. */
const NOT_THE_PAYERS = new Set([401, 403, 429]);

/**
 * Whether a failed new payment is the payer's doing, and counts under `counts: "failures"`: a declined card, or a
 * `payment_failed` the processor answered about the payment method (an unknown one, 404; not a card; a PaymentIntent
 * left `requires_action`). Not: no answer (CR-7.20), a 5xx, 429, 401 or 403, a store failure, or an error the
 * processor raised without an HTTP status (a custom processor's, a bug). Reads the `cause` chain, where the gate's
 * `payment_failed` wraps the processor's PaymentError, which wraps the SDK's error.
 */
export function isPayersFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8; depth++) {
    if (current instanceof PaymentError) {
      if (current.code === 'card_declined') return true;
      current = current.cause;
      continue;
    }
    // Past the PaymentErrors: nothing (the processor's own refusal) or the PaymentIntent's status (a string).
    if (depth > 0 && (current === undefined || typeof current === 'string')) return true;
    if (depth === 0 || gotNoAnswer(current)) return false;
    const { statusCode } = (current ?? {}) as { statusCode?: unknown };
    return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 && !NOT_THE_PAYERS.has(statusCode);
  }
  return false;
}

const PASS_THROUGH = <T>(attempt: Promise<T>): Promise<T> => attempt;

/** Builds the in-memory limiter of a validated option. */
export function createRateLimiter(limit: NewPaymentRateLimit): RateLimiter {
  const perAddress = limit.perAddress ? new FixedWindow(limit.perAddress) : undefined;
  const global = limit.global ? new SharedWindow(limit.global) : undefined;
  const failuresOnly = limit.counts === 'failures';
  return {
    hit(clientAddress, now = Date.now()) {
      const key = addressBucket(clientAddress);
      const byAddress = perAddress?.take(key, now);
      if (typeof byAddress === 'number') return { allowed: false, retryAfterSeconds: byAddress };
      const byAll = global?.take(key, now);
      if (typeof byAll === 'number') {
        if (byAddress) perAddress?.untake(byAddress);
        return { allowed: false, retryAfterSeconds: byAll };
      }
      if (!failuresOnly) {
        if (byAll) global?.keep(byAll);
        return { allowed: true, settle: PASS_THROUGH };
      }
      const uncount = (): void => {
        if (byAddress) perAddress?.untake(byAddress);
        if (byAll) global?.untake(byAll);
      };
      return {
        allowed: true,
        settle: (attempt) => attempt.then(
          (value) => {
            uncount();
            return value;
          },
          (error: unknown) => {
            if (!isPayersFailure(error)) uncount();
            else if (byAll) global?.keep(byAll);
            throw error;
          },
        ),
      };
    },
  };
}

/** The 429 answer: nothing was read from the store or sent to the processor. */
export function rateLimited(retryAfterSeconds: number): RespondDecision {
  return respond(
    429,
    { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', vary: 'payment', 'retry-after': String(retryAfterSeconds) },
    { success: false, creditsRemaining: 0, clientId: '', error: RATE_LIMITED_MESSAGE, errorCode: RATE_LIMITED },
    RATE_LIMITED,
  );
}
