// One emulator's whole state, and the shape of API routes that act on it.
import { FaultInjector } from './fault-injector.ts';
import { IdempotencyStore } from './idempotency.ts';
import { Journal } from './journal.ts';
import { Store } from './state.ts';
import { WebhookDispatcher } from './webhooks.ts';
import type { KeyKind } from './auth.ts';
import type { Params } from './params.ts';
import type { StripeEvent } from './objects.ts';

export class EmulatorState {
  readonly store = new Store();
  readonly journal = new Journal();
  readonly faults = new FaultInjector();
  readonly idempotency = new IdempotencyStore();
  /** Payment methods whose events are recorded but not delivered until redelivered (`POST /_emulator/webhooks/hold`). */
  readonly heldPaymentMethods = new Set<string>();
  readonly webhooks = new WebhookDispatcher((object) => this.#paymentMethodHeld(object));

  searchLagMs: number;
  /** API requests whose body is still being read (in flight, not journaled yet). */
  receiving = 0;

  constructor(
    readonly initialSearchLagMs: number,
    readonly stripeMockUrl: string | undefined,
  ) {
    this.searchLagMs = initialSearchLagMs;
  }

  /** Back to a fresh instance: objects, journal, faults (and their counts), idempotency keys, webhooks; search lag to its start value. */
  reset(): void {
    this.store.clear();
    this.journal.reset();
    this.faults.reset();
    this.idempotency.clear();
    this.webhooks.clear();
    this.heldPaymentMethods.clear();
    this.searchLagMs = this.initialSearchLagMs;
  }

  /** Whether the payment method behind a PaymentIntent, charge or dispute is held. */
  #paymentMethodHeld(object: StripeEvent['data']['object']): boolean {
    if (this.heldPaymentMethods.size === 0) return false;
    const charge = object.object === 'dispute' ? this.store.charges.get(object.charge) : undefined;
    const method = object.object === 'dispute' ? charge?.payment_method : object.payment_method;
    return typeof method === 'string' && this.heldPaymentMethods.has(method);
  }
}

/** An authenticated API request routed to a handler. */
export interface ApiRequest {
  method: string;
  path: string;
  params: Params;
  /** Named segments of the route pattern, e.g. `id`. */
  pathParams: Record<string, string>;
  keyKind: KeyKind;
  requestId: string;
  idempotencyKey: string | null;
}

/** Handlers return the 200 body or throw an ApiError. */
type ApiHandler = (req: ApiRequest, state: EmulatorState) => object;

export interface ApiRoute {
  method: 'GET' | 'POST';
  /** `/v1/payment_intents/:id` */
  pattern: string;
  /** Whether a publishable key may call it (Stripe.js endpoints). */
  publishable?: boolean;
  handle: ApiHandler;
}

/** The `request` member of events caused by an API request. */
export const eventRequest = (req: ApiRequest): StripeEvent['request'] => ({ id: req.requestId, idempotency_key: req.idempotencyKey });
