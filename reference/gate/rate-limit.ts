// Rate limit of the new-payment path: fixed windows per client address and for the whole process, in memory.
import { isIPv4, isIPv6 } from 'node:net';
import { Credit402ConfigError } from '../config/config-error.ts';
import type { RespondDecision } from './decision.ts';
import { respond } from './responses.ts';

/** At most `max` new-payment attempts per `windowMs`. */
interface RateWindow {
  max: number;
  windowMs: number;
}

/**
 * Option `newPaymentRateLimit` of the gate: limits requests that would go down the new-payment path (a
 * `paymentMethodId` and no spendable `clientId`), counted before any processor call. Off when absent.
 * Counters live in this process's memory: several processes behind a balancer each apply their own limit.
 */
export interface NewPaymentRateLimit {
  /** Per client address (`GateRequest.clientAddress`; IPv6 grouped by /64; requests without one share one bucket). */
  perAddress?: RateWindow;
  /** All client addresses together. */
  global?: RateWindow;
}

/** The outcome of one attempt: allowed, or refused with the seconds until the window that refused it resets. */
type RateVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Decides whether a new-payment attempt may go on; `hit` counts it when it does. */
export interface RateLimiter {
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

/** Validates the option; undefined when the limit is off. Throws a Credit402ConfigError `ERR_RATE_LIMIT`. */
export function validateRateLimit(value: unknown): NewPaymentRateLimit | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Credit402ConfigError('ERR_RATE_LIMIT', 'newPaymentRateLimit must be an object { perAddress?, global? }');
  }
  const unknown = Object.keys(value).find((key) => key !== 'perAddress' && key !== 'global');
  if (unknown !== undefined) throw new Credit402ConfigError('ERR_RATE_LIMIT', `newPaymentRateLimit has an unknown key ${unknown}`);
  const { perAddress, global } = value as Record<string, unknown>;
  const resolved = { perAddress: checkWindow(perAddress, 'perAddress'), global: checkWindow(global, 'global') };
  if (resolved.perAddress === undefined && resolved.global === undefined) return undefined;
  return {
    ...(resolved.perAddress ? { perAddress: resolved.perAddress } : {}),
    ...(resolved.global ? { global: resolved.global } : {}),
  };
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

class FixedWindow {
  private readonly counters = new Map<string, Counter>();
  private lastSweep = 0;
  constructor(private readonly window: RateWindow) {}

  /** Seconds until this key's window resets when it is full, else undefined (and the attempt is counted). */
  take(key: string, now: number): number | undefined {
    this.sweep(now);
    let counter = this.counters.get(key);
    if (counter === undefined || now - counter.start >= this.window.windowMs) {
      counter = { start: now, count: 0 };
      this.counters.set(key, counter);
    }
    if (counter.count >= this.window.max) return Math.max(1, Math.ceil((counter.start + this.window.windowMs - now) / 1000));
    counter.count++;
    return undefined;
  }

  /** Undoes a `take` that another window refused, so that a refused attempt is not counted. */
  untake(key: string): void {
    const counter = this.counters.get(key);
    if (counter && counter.count > 0) counter.count--;
  }

  /** Drops expired counters once a window, so memory is bounded by the addresses seen in one window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.window.windowMs) return;
    this.lastSweep = now;
    for (const [key, counter] of this.counters) if (now - counter.start >= this.window.windowMs) this.counters.delete(key);
  }
}

/** Builds the in-memory limiter of a validated option. */
export function createRateLimiter(limit: NewPaymentRateLimit): RateLimiter {
  const perAddress = limit.perAddress ? new FixedWindow(limit.perAddress) : undefined;
  const global = limit.global ? new FixedWindow(limit.global) : undefined;
  return {
    hit(clientAddress, now = Date.now()) {
      const key = addressBucket(clientAddress);
      const addressWait = perAddress?.take(key, now);
      if (addressWait !== undefined) return { allowed: false, retryAfterSeconds: addressWait };
      const globalWait = global?.take('', now);
      if (globalWait !== undefined) {
        perAddress?.untake(key);
        return { allowed: false, retryAfterSeconds: globalWait };
      }
      return { allowed: true };
    },
  };
}

/** The 429 answer: nothing was read from the store or sent to the processor. */
export function rateLimited(retryAfterSeconds: number): RespondDecision {
  return respond(
    429,
    { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', vary: 'payment', 'retry-after': String(retryAfterSeconds) },
    { success: false, creditsRemaining: 0, clientId: '', error: RATE_LIMITED_MESSAGE, errorCode: RATE_LIMITED },
  );
}
