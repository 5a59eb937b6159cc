// Events and webhook delivery: creates `evt_…` objects, signs them like Stripe and POSTs them to registered endpoints.
import { createHmac } from 'node:crypto';
import { newId, unixNow } from './ids.ts';
import type { DeliveryAttempt, EventRecord, WebhookEndpointInfo } from './control-types.ts';
import type { EventType, StripeEvent } from './objects.ts';

/** API version stamped on events: the one the installed stripe SDK pins, whose shapes the emulator follows. */
export const API_VERSION = '2026-10-28.endive';
const DELIVERY_TIMEOUT_MS = 10_000;

/** `Stripe-Signature` header value for `payload`, as Stripe computes it. */
export function signPayload(payload: string, secret: string, timestamp = unixNow()): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** An endpoint with its signing secret, which stays inside the emulator. */
interface WebhookEndpoint extends WebhookEndpointInfo {
  secret: string;
}

/** Whether an event about `object` is held: recorded, but delivered only when redelivered. */
type HoldPredicate = (object: StripeEvent['data']['object']) => boolean;

/** Keeps events and delivers each one, in creation order per endpoint, without delaying API answers. */
export class WebhookDispatcher {
  readonly #endpoints: WebhookEndpoint[] = [];
  readonly #isHeld: HoldPredicate;
  readonly #records = new Map<string, EventRecord>();
  readonly #queues = new Map<string, Promise<unknown>>();
  #abort = new AbortController();

  constructor(isHeld: HoldPredicate = () => false) {
    this.#isHeld = isHeld;
  }

  /** Adds an endpoint; its events are signed with `secret`, which is never returned. */
  register(url: string, secret: string): WebhookEndpointInfo {
    const endpoint = { id: newId('we'), url, secret };
    this.#endpoints.push(endpoint);
    return { id: endpoint.id, url };
  }

  /** The endpoints, without their secrets. */
  endpoints(): WebhookEndpointInfo[] {
    return this.#endpoints.map(({ id, url }) => ({ id, url }));
  }

  /** Creates an event with a snapshot of `object` and schedules its delivery. */
  emit(type: EventType, object: StripeEvent['data']['object'], request: StripeEvent['request']): StripeEvent {
    const event: StripeEvent = {
      id: newId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: unixNow(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.#endpoints.length,
      request,
      type,
    };
    const held = this.#isHeld(object);
    const record: EventRecord = { event, attempts: [], ...(held ? { held: true as const } : {}) };
    this.#records.set(event.id, record);
    if (!held) for (const endpoint of this.#endpoints) void this.#enqueue(record, endpoint, new Set());
    return event;
  }

  get(id: string): StripeEvent | undefined {
    return this.#records.get(id)?.event;
  }

  /** Events, oldest first, with their delivery attempts. */
  list(): EventRecord[] {
    return [...this.#records.values()].map((r) => structuredClone(r));
  }

  /** Sends one event again to every endpoint; resolves with the new attempts. */
  async redeliver(id: string): Promise<DeliveryAttempt[] | undefined> {
    const record = this.#records.get(id);
    if (!record) return undefined;
    const fresh = new Set<DeliveryAttempt>();
    await Promise.all(this.#endpoints.map((endpoint) => this.#enqueue(record, endpoint, fresh)));
    return [...fresh];
  }

  /** Forgets endpoints and events and abandons deliveries in flight. */
  clear(): void {
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#endpoints.length = 0;
    this.#records.clear();
    this.#queues.clear();
  }

  #enqueue(record: EventRecord, endpoint: WebhookEndpoint, collect: Set<DeliveryAttempt>): Promise<void> {
    const previous = this.#queues.get(endpoint.id) ?? Promise.resolve();
    const next = previous.then(() => this.#deliver(record, endpoint, collect));
    this.#queues.set(endpoint.id, next);
    return next;
  }

  async #deliver(record: EventRecord, endpoint: WebhookEndpoint, collect: Set<DeliveryAttempt>): Promise<void> {
    const signal = this.#abort.signal;
    if (signal.aborted) return;
    const payload = JSON.stringify(record.event, null, 2);
    const started = Date.now();
    const attempt: DeliveryAttempt = { endpointId: endpoint.id, url: endpoint.url, time: new Date(started).toISOString(), status: null, error: null, durationMs: 0 };
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signPayload(payload, endpoint.secret),
        },
        body: payload,
        signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
      });
      await response.arrayBuffer();
      attempt.status = response.status;
      const firstSuccess = response.ok && !record.attempts.some((a) => a.endpointId === endpoint.id && a.status !== null && a.status >= 200 && a.status < 300);
      if (firstSuccess) record.event.pending_webhooks = Math.max(0, record.event.pending_webhooks - 1);
    } catch (error) {
      if (signal.aborted) return;
      attempt.error = error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error);
    }
    attempt.durationMs = Date.now() - started;
    record.attempts.push(attempt);
    collect.add(attempt);
  }
}
