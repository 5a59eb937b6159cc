// The history's HTTP exchanges with the target: one request with an optional body, its answer decoded, everything recorded for the transcript.
import http from 'node:http';
import { decodeStrict } from '../world/base64-json.ts';
import { newRequestId, REQUEST_ID_HEADER } from '../world/http-client.ts';

const agent = new http.Agent({ keepAlive: false, maxSockets: 256 });

/** One request of a history. */
export interface HistoryRequest {
  method: string;
  target: string;
  /** The `payment` payload, sent as base64 JSON. */
  payment?: Record<string, unknown>;
  /** A request body (with `content-type: application/json`). */
  body?: string;
  /** The `conformance-request-id` to send (default: a fresh one), e.g. one an upstream fault was armed on. */
  requestId?: string;
}

/** One request of a history and what came back. */
export interface HistoryExchange extends HistoryRequest {
  /** The operation it belongs to (0-based), or `probe` for the closing balance reads. */
  op: number | 'probe';
  /** The `conformance-request-id` it carried. */
  requestId: string;
  /** Milliseconds from the history's start to the request, and its duration. */
  atMs: number;
  durationMs: number;
  status?: number;
  error?: string;
  /** The decoded `payment-response`, when it was a JSON object. */
  paymentResponse?: Record<string, unknown>;
  /** Whether the answer carried `payment-required` (a challenge). */
  challenge?: boolean;
  /** The `errorCode` of a payment-error body. */
  errorCode?: string;
  /** The first characters of the body. */
  text?: string;
  /** How often its handler ran (the profile's handled route), once asked. */
  handled?: number;
  /** An answer that broke off after its status line (no `status`: no whole answer came): its status and `payment-response`. */
  head?: { status: number; paymentResponse?: Record<string, unknown> };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function decodeObject(value: string | string[] | undefined): Record<string, unknown> | undefined {
  if (typeof value !== 'string') return undefined;
  const decoded = decodeStrict(value);
  const object = decoded.ok ? decoded.value : decoded.lenient;
  return isObject(object) ? object : undefined;
}

/** Sends one request; never rejects: a transport error or timeout is recorded in `error`. */
export function send(baseUrl: string, request: HistoryRequest, op: number | 'probe', startedAt: number, timeoutMs: number): Promise<HistoryExchange> {
  const base = new URL(baseUrl);
  const exchange: HistoryExchange = { ...request, op, requestId: request.requestId ?? newRequestId(), atMs: Date.now() - startedAt, durationMs: 0 };
  const headers: Record<string, string> = { [REQUEST_ID_HEADER]: exchange.requestId };
  if (request.payment) headers.payment = Buffer.from(JSON.stringify(request.payment), 'utf8').toString('base64');
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  if (request.method !== 'GET' && request.method !== 'HEAD') headers['content-length'] = String(body?.length ?? 0);
  const began = performance.now();
  return new Promise((resolve) => {
    const done = (): void => {
      exchange.durationMs = Math.round(performance.now() - began);
      resolve(exchange);
    };
    const outgoing = http.request({ agent, hostname: base.hostname, port: base.port, method: request.method, path: request.target, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        exchange.error = `the answer broke off after its status line: ${error.message}`;
        const paymentResponse = decodeObject(response.headers['payment-response']);
        exchange.head = { status: response.statusCode ?? 0, ...(paymentResponse ? { paymentResponse } : {}) };
        done();
      });
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        exchange.status = response.statusCode ?? 0;
        exchange.text = text.slice(0, 300);
        const paymentResponse = decodeObject(response.headers['payment-response']);
        if (paymentResponse) exchange.paymentResponse = paymentResponse;
        if (response.headers['payment-required'] !== undefined) exchange.challenge = true;
        try {
          const json: unknown = JSON.parse(text);
          if (isObject(json) && typeof json.errorCode === 'string') exchange.errorCode = json.errorCode;
        } catch {
          // Not JSON: nothing more to read.
        }
        done();
      });
    });
    const timer = setTimeout(() => outgoing.destroy(new Error(`the target did not answer within ${timeoutMs} ms`)), timeoutMs);
    outgoing.on('error', (error) => {
      exchange.error = error.message;
      done();
    });
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.end(body);
  });
}

/**
 * Asks the handled route how often each exchange's handler ran and notes it in `handled`; resolves false when the target
 * has no handled route (404, or no JSON object), which leaves the handler runs unjudged.
 */
export async function askHandled(baseUrl: string, handledPath: string, exchanges: readonly HistoryExchange[]): Promise<boolean> {
  for (let from = 0; from < exchanges.length; from += 100) {
    const slice = exchanges.slice(from, from + 100);
    const url = new URL(`${handledPath}?ids=${slice.map((exchange) => exchange.requestId).join(',')}`, baseUrl);
    let counts: unknown;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'manual' });
      if (response.status !== 200) return false;
      counts = await response.json();
    } catch {
      return false;
    }
    if (!isObject(counts)) return false;
    for (const exchange of slice) {
      const count = counts[exchange.requestId];
      if (Number.isSafeInteger(count)) exchange.handled = count as number;
    }
  }
  return true;
}

/** One exchange on one line (or two), for the transcript. */
export function describeExchange(exchange: HistoryExchange): string {
  const payment = exchange.payment ? ` payment ${JSON.stringify(exchange.payment)}` : '';
  const body = exchange.body === undefined ? '' : ` body ${JSON.stringify(exchange.body)}`;
  const head = `  ${exchange.op === 'probe' ? 'probe' : `op ${exchange.op}`} +${exchange.atMs}ms ${exchange.method} ${exchange.target}${payment}${body}`;
  if (exchange.status === undefined) {
    const cut = exchange.head ? ` (its head: ${exchange.head.status}${exchange.head.paymentResponse ? `, payment-response ${JSON.stringify(exchange.head.paymentResponse)}` : ''})` : '';
    const ran = exchange.handled === undefined ? '' : `, handler ran ${exchange.handled}×`;
    return `${head}\n    → no answer after ${exchange.durationMs} ms: ${exchange.error ?? 'unknown error'}${cut}${ran}`;
  }
  const parts = [
    `${exchange.status}`,
    exchange.paymentResponse ? `payment-response ${JSON.stringify(exchange.paymentResponse)}` : undefined,
    exchange.challenge ? 'payment-required' : undefined,
    exchange.errorCode && !exchange.paymentResponse ? `errorCode ${exchange.errorCode}` : undefined,
    exchange.handled === undefined ? undefined : `handler ran ${exchange.handled}×`,
    `${exchange.durationMs} ms`,
  ].filter(Boolean);
  return `${head}\n    → ${parts.join(', ')}`;
}
