// Lifecycle events of the gate, handed to the `hooks` option: one emitter, called where the engine decides.
import { Credit402ConfigError } from '../config/config-error.ts';
import type { Store } from '../stores/store.ts';
import { wrapStoreMethods } from '../stores/wrap-store.ts';
import type { ErrorReporter } from './failures.ts';

/** What every event of a request to a gated route names: the route key (`GET /api/joke`) and its currency. */
interface RouteEvent {
  /** The gated route's key, `<METHOD> <path>`. */
  route: string;
  /** The route's currency, lowercase ISO code. */
  currency: string;
}

/**
 * The first 8 characters of the client id, enough to tell clients apart in a log. Never the whole id: a clientId
 * is a bearer credential. Metrics should not label by it at all.
 */
export type ClientTag = string;

/** A 402 challenge was answered: `plain` (no payment header) or `insufficient` (a balance too low, no card). */
export interface ChallengeEvent extends RouteEvent {
  type: 'challenge';
  reason: 'plain' | 'insufficient';
}

/** The processor charged a card for a top-up (the PaymentIntent succeeded). */
export interface ChargeEvent extends RouteEvent {
  type: 'charge';
  /** The top-up in units (1 unit = 1/10000 of the currency's main unit). */
  units: number;
  /** The amount charged in the currency's minor units (cents). */
  minorUnits: number;
  /** The PaymentIntent id. */
  chargeId: string;
  client: ClientTag;
}

/** A charged top-up was credited to the balance. */
export interface CreditEvent extends RouteEvent {
  type: 'credit';
  units: number;
  chargeId: string;
  client: ClientTag;
}

/**
 * A paid request is served: the route's price was deducted (`repeated: false`), or a retry under the same request
 * id was served without deducting again (`repeated: true`, `units` is then 0).
 */
export interface DeductionEvent extends RouteEvent {
  type: 'deduction';
  units: number;
  /** The balance left, in units. */
  balance: number;
  repeated: boolean;
  /** True when this deduction follows a charge of the same request. */
  afterCharge: boolean;
  client: ClientTag;
}

/** The price of a served request went back to the balance (`refundOnHandlerError`, the handler failed). */
export interface RefundEvent extends RouteEvent {
  type: 'refund';
  units: number;
  client: ClientTag;
}

/** The gate answered a payment error (402 with an `errorCode`, or 429 `rate_limited`). */
export interface PaymentErrorEvent extends RouteEvent {
  type: 'payment_error';
  /** The answer's `errorCode` (`card_declined`, `payment_failed`, `invalid_payment`, …), or `rate_limited`. */
  code: string;
  status: number;
}

/** The store failed or was too slow: the request was answered 503. */
export interface StoreUnavailableEvent extends RouteEvent {
  type: 'store_unavailable';
  /** The store operation that failed (`deductBalance`, …), when known. */
  operation: string | undefined;
}

/** One store call the gate made, with its latency (every call, whether it succeeded or not). */
export interface StoreCallEvent {
  type: 'store_call';
  /** The store method: `deductBalance`, `creditTopUp`, `getClient`, `acquireLock`, … */
  operation: string;
  /** Wall-clock time of the call, in ms. */
  ms: number;
  ok: boolean;
}

/** Every lifecycle event of the gate. */
export type GateEvent =
  | ChallengeEvent
  | ChargeEvent
  | CreditEvent
  | DeductionEvent
  | RefundEvent
  | PaymentErrorEvent
  | StoreUnavailableEvent
  | StoreCallEvent;

/** The `type` of each {@link GateEvent}. */
export type GateEventType = GateEvent['type'];

/**
 * The `hooks` gate option. `onEvent` is called synchronously, in the request's own path, with each event; what it
 * throws goes to `onError` (stage `hooks`) and changes nothing else. It must not block: a hook that has slow work
 * to do (a network call) queues it and returns. Its return value is ignored (a returned promise is not awaited;
 * its rejection goes to `onError` too).
 */
export interface GateHooks {
  onEvent?: (event: GateEvent) => unknown;
}

/** Calls the hooks with one event; a no-op without hooks. */
export type Emit = (event: GateEvent) => void;

/** The emitter of a gate without hooks: events are not even built where that costs something. */
export const NO_EVENTS: Emit = () => {};

/** Validates the `hooks` option; throws ERR_HOOKS. */
export function validateHooks(hooks: unknown): GateHooks | undefined {
  if (hooks === undefined) return undefined;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    throw new Credit402ConfigError('ERR_HOOKS', 'hooks must be an object such as { onEvent(event) { … } }');
  }
  const { onEvent } = hooks as { onEvent?: unknown };
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new Credit402ConfigError('ERR_HOOKS', 'hooks.onEvent must be a function');
  }
  return hooks as GateHooks;
}

/**
 * The emitter of a gate: calls `hooks.onEvent` synchronously inside try/catch; a throw, or the rejection of a
 * returned promise, is reported to `report` with stage `hooks`. Events are frozen: a hook cannot alter them.
 */
export function createEmitter(hooks: GateHooks | undefined, report: ErrorReporter): Emit {
  const onEvent = hooks?.onEvent;
  if (onEvent === undefined) return NO_EVENTS;
  return (event) => {
    try {
      const result: unknown = onEvent.call(hooks, Object.freeze(event));
      if (result instanceof Promise) result.catch((error: unknown) => report(error, 'hooks'));
    } catch (error) {
      report(error, 'hooks');
    }
  };
}

/** The client tag of an event: the first 8 characters of the id, never the bearer credential itself. */
export function clientTag(clientId: string): ClientTag {
  return clientId.slice(0, 8);
}

/**
 * `store` with every call timed: each call emits a `store_call` event with its latency once it settles. Returns
 * `store` itself when nothing listens. Optional methods are present exactly when `store` has them.
 */
export function withStoreTiming(store: Store, emit: Emit): Store {
  if (emit === NO_EVENTS) return store;
  return wrapStoreMethods(store, async (operation, call) => {
    const started = performance.now();
    try {
      const value = await call();
      emit({ type: 'store_call', operation, ms: performance.now() - started, ok: true });
      return value;
    } catch (error) {
      emit({ type: 'store_call', operation, ms: performance.now() - started, ok: false });
      throw error;
    }
  });
}
