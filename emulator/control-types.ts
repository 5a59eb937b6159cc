// Types shared by the control API and its client: journal entries, faults, webhook endpoints, events.
import type { Charge, Dispute, PaymentIntent, Refund, StripeEvent } from './objects.ts';

/** One API request as the emulator saw and answered it. */
export interface JournalEntry {
  /** 1, 2, 3… in arrival order of answers; never reused until `reset`. */
  seq: number;
  /** ISO timestamp of the answer. */
  time: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Decoded form body (POST) or query (GET); values stay strings, as on the wire. */
  params: Record<string, unknown>;
  idempotencyKey?: string;
  requestId: string;
  /** HTTP status answered, or null when the connection was reset or timed out. */
  status: number | null;
  /** True when answered from the idempotency cache. */
  replayed: boolean;
  /** The injected fault that hit this request. */
  fault?: FaultKind;
  /** True when the answer came from the stripe-mock oracle. */
  oracle?: boolean;
  /** The JSON body sent, or null when nothing was sent. */
  response: unknown;
}

/** Filters of `GET /_emulator/journal`: path prefix, method, and entries after a sequence number. */
export interface JournalFilter {
  path?: string;
  method?: string;
  since?: number;
}

export type FaultKind = 'error500' | 'rateLimit429' | 'timeout' | 'reset' | 'delay';

/** What `POST /_emulator/faults` accepts. */
export interface FaultSpec {
  method?: 'GET' | 'POST';
  /** Prefix of the request path, e.g. `/v1/payment_intents`. */
  path: string;
  /** How many matching requests fail; default 1. */
  count?: number;
  kind: FaultKind;
  /** `timeout`: how long to hold before dropping (default 30000); `delay`: added latency (default 1000). */
  delayMs?: number;
  /** Only requests whose decoded top-level params equal these values (e.g. `{ payment_method: 'pm_…' }`). */
  match?: Record<string, string>;
}

/** A registered fault and how many matching requests it will still hit. */
export interface ActiveFault extends FaultSpec {
  id: string;
  count: number;
  remaining: number;
}

export interface WebhookEndpointInfo {
  id: string;
  url: string;
  secret: string;
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
