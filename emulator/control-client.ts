// Typed client of the emulator's control API (/_emulator), over fetch.
import type {
  ActiveFault,
  DeliveryAttempt,
  DisputeResult,
  EventRecord,
  FaultSpec,
  InFlight,
  JournalEntry,
  JournalFilter,
  RefundResult,
  WebhookEndpointInfo,
} from './control-types.ts';
import type { Charge } from './objects.ts';

/** The control collection an id belongs to: charges (`ch_…`, `py_…`) or PaymentIntents. */
const collection = (id: string): string => (/^(ch|py)_/.test(id) ? 'charges' : 'payment_intents');

/** Drives one emulator through its control URL (`RunningEmulator.controlUrl`). */
export class EmulatorControl {
  readonly #base: string;

  constructor(controlUrl: string) {
    this.#base = controlUrl.replace(/\/$/, '');
  }

  async #call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.#base}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (!response.ok) {
      const message = (parsed as { error?: { message?: string } } | undefined)?.error?.message ?? text;
      throw new Error(`emulator control ${method} ${path} failed with ${response.status}: ${message}`);
    }
    return parsed as T;
  }

  /** API requests in order; filter by path prefix, method, or sequence numbers after `since`. */
  journal(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    const query = new URLSearchParams();
    if (filter.path !== undefined) query.set('path', filter.path);
    if (filter.method !== undefined) query.set('method', filter.method);
    if (filter.since !== undefined) query.set('since', String(filter.since));
    const search = query.size > 0 ? `?${query}` : '';
    return this.#call('GET', `/journal${search}`);
  }

  async clearJournal(): Promise<void> {
    await this.#call('DELETE', '/journal');
  }

  /** API requests arrived and not answered yet (held by a fault, or being executed). */
  inFlight(): Promise<InFlight> {
    return this.#call('GET', '/in-flight');
  }

  /** Makes the next `count` (default 1) matching API requests fail, or every one until removed (`untilRemoved`). */
  injectFault(spec: FaultSpec): Promise<ActiveFault> {
    return this.#call('POST', '/faults', spec);
  }

  /** Faults not yet used up; with `all`, every fault since the last reset (with how often each fired). */
  faults(options: { all?: boolean } = {}): Promise<ActiveFault[]> {
    return this.#call('GET', options.all ? '/faults?all=true' : '/faults');
  }

  /** One fault by id, used up or removed ones too: `fired` counts the requests it hit. */
  fault(id: string): Promise<ActiveFault> {
    return this.#call('GET', `/faults/${encodeURIComponent(id)}`);
  }

  /** Deactivates one fault (a barrier lets its held requests go); resolves with its final state. */
  removeFault(id: string): Promise<ActiveFault> {
    return this.#call('DELETE', `/faults/${encodeURIComponent(id)}`);
  }

  async clearFaults(): Promise<void> {
    await this.#call('DELETE', '/faults');
  }

  /** Customers stay invisible to search for `ms` after creation. */
  async setSearchLag(ms: number): Promise<void> {
    await this.#call('POST', '/search-lag', { ms });
  }

  /** Forgets all objects, journal, faults, idempotency keys, webhooks and events. */
  async reset(): Promise<void> {
    await this.#call('POST', '/reset');
  }

  /** Registers a webhook endpoint; events are signed with `secret`. */
  registerWebhook(url: string, secret: string): Promise<WebhookEndpointInfo> {
    return this.#call('POST', '/webhooks', { url, secret });
  }

  /** The registered webhook endpoints (their secrets are never read back). */
  webhooks(): Promise<WebhookEndpointInfo[]> {
    return this.#call('GET', '/webhooks');
  }

  /** Sends an event again to every endpoint; resolves with the new delivery attempts. */
  redeliver(eventId: string): Promise<DeliveryAttempt[]> {
    return this.#call('POST', `/events/${encodeURIComponent(eventId)}/redeliver`);
  }

  /** Refunds a succeeded PaymentIntent, or a charge (`ch_…`), all that is left by default; emits `charge.refunded`. */
  refund(id: string, amount?: number): Promise<RefundResult> {
    return this.#call('POST', `/${collection(id)}/${encodeURIComponent(id)}/refund`, amount === undefined ? {} : { amount });
  }

  /** Disputes a succeeded PaymentIntent's charge, or a charge (`ch_…`), for all that is not refunded by default; emits `charge.dispute.created`. */
  dispute(id: string, options: { amount?: number; reason?: string } = {}): Promise<DisputeResult> {
    return this.#call('POST', `/${collection(id)}/${encodeURIComponent(id)}/dispute`, options);
  }

  /** Creates a succeeded charge without a PaymentIntent (as the legacy Charges API does); emits no event. */
  createCharge(charge: { paymentMethod: string; amount: number; currency?: string }): Promise<Charge> {
    return this.#call('POST', '/charges', { payment_method: charge.paymentMethod, amount: charge.amount, ...(charge.currency ? { currency: charge.currency } : {}) });
  }

  /** Holds the events about `paymentMethodId`'s PaymentIntents, charges and disputes: recorded, delivered only by `redeliver`. */
  async holdEvents(paymentMethodId: string): Promise<void> {
    await this.#call('POST', '/webhooks/hold', { payment_method: paymentMethodId });
  }

  /** Events, oldest first, with their delivery attempts. */
  events(): Promise<EventRecord[]> {
    return this.#call('GET', '/events');
  }

  /** Polls `events()` until one satisfies `predicate`; rejects after `timeoutMs` (default 5000). */
  async waitForEvent(predicate: (record: EventRecord) => boolean, timeoutMs = 5_000): Promise<EventRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.events()).find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching emulator event within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
