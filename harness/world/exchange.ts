// One HTTP exchange with the target, as recorded for judging and for the failure transcript.
import type { Decoded } from './base64-json.ts';

/** A request the harness sends: method, request target (path and query, or absolute form) and headers. */
export interface OutgoingRequest {
  method: string;
  /** Request target as sent on the request line, e.g. `/api/weather?city=Oslo`. */
  target: string;
  /** Header name as written on the wire → value; an array sends the header once per element. */
  headers?: Record<string, string | string[]>;
}

/** The target's answer. */
export interface Answer {
  status: number;
  /** Header lines in wire order with the names as sent. */
  rawHeaders: Array<[string, string]>;
  /** Header names lowercased; a repeated header keeps every value. */
  headers: Record<string, string | string[]>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** Strict decodings (CR-3.2) of the protocol headers, when present. */
  paymentRequired?: Decoded;
  paymentResponse?: Decoded;
}

/** A request and its answer (or the transport error). */
export interface Exchange {
  request: OutgoingRequest;
  /** The request path (no query) the target should match: the route key is `<method> <path>`. */
  path: string;
  startedAt: string;
  durationMs: number;
  answer?: Answer;
  error?: string;
  /** Part of a Given step's set-up: the transcript shows it on one line. */
  setup?: boolean;
  /** The `conformance-request-id` the request carried (PROFILE.md, "Handler runs"); absent when it carried none. */
  requestId?: string;
}

/** The answer of an exchange; throws the transport error when there was none. */
export function answerOf(exchange: Exchange): Answer {
  if (!exchange.answer) throw new Error(`${exchange.request.method} ${exchange.request.target} got no answer: ${exchange.error ?? 'unknown error'}`);
  return exchange.answer;
}

/** A header's single value; undefined when absent; throws when the target sent it more than once. */
export function singleHeader(answer: Answer, name: string): string | undefined {
  const value = answer.headers[name.toLowerCase()];
  if (Array.isArray(value)) throw new Error(`the answer carries the ${name} header ${value.length} times`);
  return value;
}
