// Types shared by the control API and its client: journal entries, faults, webhook endpoints, events.
import type { Charge, Dispute, PaymentIntent, Refund, StripeEvent } from './objects.ts';

/** One API request as the emulator saw and answered it; journaled when it arrives, completed when answered. */
export interface JournalEntry {
  /** 1, 2, 3… in arrival order; never reused until `reset`. */
  seq: number;
  /** ISO timestamp of the arrival. */
  time: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Decoded form body (POST) or query (GET); values stay strings, as on the wire. */
  params: Record<string, unknown>;
  idempotencyKey?: string;
  requestId: string;
  /** HTTP status answered, or null when the connection was reset or timed out, or while in flight. */
  status: number | null;
  /** True when answered from the idempotency cache. */
  replayed: boolean;
  /** The injected fault that hit this request. */
  fault?: FaultKind;
  /** True when the answer came from the stripe-mock oracle. */
  oracle?: boolean;
  /** The JSON body sent, or null when nothing was sent (yet). */
  response: unknown;
  /** Present (true) while the request is in flight: arrived, not yet answered or dropped (e.g. held by a fault). */
  inFlight?: true;
  /** Milliseconds from arrival to answer (or drop); absent while in flight. */
  durationMs?: number;
}

/** What `GET /_emulator/in-flight` answers: requests arrived and not yet answered. */
export interface InFlight {
  /** All of them, including requests whose body is still being read (not journaled yet). */
  count: number;
  /** The journaled ones, oldest first. */
  entries: JournalEntry[];
}

/** Filters of `GET /_emulator/journal`: path prefix, method, and entries after a sequence number. */
export interface JournalFilter {
  path?: string;
  method?: string;
  since?: number;
}

export type FaultKind = 'error500' | 'rateLimit429' | 'timeout' | 'reset' | 'delay' | 'barrier';

/** What `POST /_emulator/faults` accepts. */
export interface FaultSpec {
  method?: 'GET' | 'POST';
  /** Prefix of the request path, e.g. `/v1/payment_intents`. */
  path: string;
  /** How many matching requests it hits; default 1. `barrier`: how many requests to gather. */
  count?: number;
  /** Hit every matching request until `DELETE /_emulator/faults/:id` (then `count` is ignored; not for `barrier`). */
  untilRemoved?: boolean;
  kind: FaultKind;
  /**
   * `timeout`: how long to hold before dropping (default 30000); `delay`: added latency (default 1000);
   * `barrier`: the longest hold, counted from the first arrival (default 1500).
   */
  delayMs?: number;
  /** Only requests whose decoded top-level params equal these values (e.g. `{ payment_method: 'pm_…' }`). */
  match?: Record<string, string>;
  /** Only requests whose top-level param contains this text (objects as their JSON), e.g. `{ query: '<clientId>' }`. */
  contains?: Record<string, string>;
  /** Only requests sent with this `Idempotency-Key`. */
  idempotencyKey?: string;
}

/** A registered fault: how many requests it hit, and how many it will still hit. */
export interface ActiveFault extends FaultSpec {
  id: string;
  count: number;
  /** Matching requests it will still hit; null for `untilRemoved` faults. */
  remaining: number | null;
  /** Requests it hit so far (kept after it is used up or removed, until `reset`). */
  fired: number;
  /** False once used up (a barrier: released) or removed. */
  active: boolean;
}

/** A registered webhook endpoint. Its signing secret is never handed out: whoever has it can forge events. */
export interface WebhookEndpointInfo {
  id: string;
  url: string;
}

/** One POST of an event to one endpoint. */
export interface DeliveryAttempt {
  endpointId: string;
  url: string;
  time: string;
  /** Status the endpoint answered, or null on a network error or timeout. */
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface EventRecord {
  event: StripeEvent;
  attempts: DeliveryAttempt[];
  /** True when the event is about a payment method whose events are held: delivered only when redelivered. */
  held?: true;
}

export interface RefundResult {
  refund: Refund;
  charge: Charge;
  event: StripeEvent;
}

export interface DisputeResult {
  dispute: Dispute;
  charge: Charge;
  event: StripeEvent;
}

export type { Charge, Dispute, PaymentIntent, Refund, StripeEvent };
