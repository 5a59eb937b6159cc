// HTTP client towards the target: raw request targets and header names, a per-request timeout and id, every exchange recorded.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { decodeStrict } from './base64-json.ts';
import type { Answer, Exchange, OutgoingRequest } from './exchange.ts';

const agent = new http.Agent({ keepAlive: false, maxSockets: 256 });

/** The header carrying each request's unique id, by which the profile's handlers count their runs (PROFILE.md). */
export const REQUEST_ID_HEADER = 'conformance-request-id';

const TIMEOUT_MESSAGE = 'the target did not answer within';
const CUT_OFF_MESSAGE = 'the answer broke off after its status line';

/** A new request id: 16 random bytes in lowercase hex. */
export function newRequestId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * True when the client cannot know what the target did with the request: it gave up waiting (timeout), or the
 * answer broke off after its status line. The target may have served such a request all the same.
 */
export function outcomeUnknown(exchange: Exchange): boolean {
  return exchange.answer === undefined && exchange.error !== undefined && (exchange.error.startsWith(TIMEOUT_MESSAGE) || exchange.error.startsWith(CUT_OFF_MESSAGE));
}

/** The request id the caller's own headers carry (any case), if any. */
function ownRequestId(headers: OutgoingRequest['headers']): string | undefined {
  const entry = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === REQUEST_ID_HEADER);
  return typeof entry?.[1] === 'string' ? entry[1] : undefined;
}

/** The request path of CR-4.2: no query, and only percent-encoded unreserved characters decoded. */
function pathOf(target: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  const rest = absolute ? target.slice(absolute[0].length) || '/' : target;
  const path = rest.split(/[?#]/, 1)[0] ?? rest;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : encoded;
  });
}

function toAnswer(response: http.IncomingMessage, body: Buffer): Answer {
  const rawHeaders: Array<[string, string]> = [];
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
    const name = response.rawHeaders[i] ?? '';
    const value = response.rawHeaders[i + 1] ?? '';
    rawHeaders.push([name, value]);
    const key = name.toLowerCase();
    const previous = headers[key];
    headers[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const decode = (name: string) => {
    const value = headers[name];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? { ok: false as const, reason: `header sent ${value.length} times` } : decodeStrict(value);
  };
  const paymentRequired = decode('payment-required');
  const paymentResponse = decode('payment-response');
  return {
    status: response.statusCode ?? 0,
    rawHeaders,
    headers,
    text,
    json,
    ...(paymentRequired ? { paymentRequired } : {}),
    ...(paymentResponse ? { paymentResponse } : {}),
  };
}

/** Options of one request: kept for judging (`record`), part of a set-up, its timeout, whether it carries a request id. */
interface SendOptions {
  record?: boolean;
  setup?: boolean;
  timeoutMs?: number;
  requestId?: boolean;
}

/** Sends requests to one target and keeps the exchanges of the current scenario. */
export class TargetClient {
  /** The scenario's exchanges that steps judge and the transcript shows. */
  readonly exchanges: Exchange[] = [];
  /** Every exchange of the scenario, recorded or not (the fuzz's thousand requests too): what the audits see. */
  readonly audited: Exchange[] = [];
  readonly #base: URL;
  readonly #timeoutMs: number;

  constructor(baseUrl: string, timeoutMs: number) {
    this.#base = new URL(baseUrl);
    this.#timeoutMs = timeoutMs;
  }

  /** The target's origin, for absolute-form request targets. */
  get origin(): string {
    return this.#base.origin;
  }

  /**
   * Sends one request; never rejects: a transport error or timeout is recorded in `error`. The request carries a new
   * `conformance-request-id` (kept in `requestId`) besides its own headers, unless `requestId` is false; when its own
   * headers already name one, that one is sent and kept.
   */
  async send(request: OutgoingRequest, options: SendOptions = {}): Promise<Exchange> {
    const { exchange, extra } = this.#begin(request, options);
    await this.#complete(exchange, extra, options.timeoutMs ?? this.#timeoutMs);
    return exchange;
  }

  /**
   * Sends `requests` all in flight together, as {@link send} sends one: a connection is opened for each first, then
   * every request is written in the same turn of the event loop, so that they reach the target at the same moment (a
   * target that batches what arrives together sees them in one batch). Never rejects; resolves in the given order.
   */
  async sendTogether(requests: readonly OutgoingRequest[], options: SendOptions = {}): Promise<Exchange[]> {
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const begun = requests.map((request) => this.#begin(request, options));
    const sockets = await Promise.all(begun.map(() => this.#connect(timeoutMs).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))));
    // No await between the writes: each request's headers go out in the same tick.
    return Promise.all(begun.map(async ({ exchange, extra }, index) => {
      const socket = sockets[index];
      if (socket instanceof Error) exchange.error = socket.message;
      else await this.#complete(exchange, extra, timeoutMs, socket);
      return exchange;
    }));
  }

  /** The exchange of a request about to be sent (recorded, audited) and the request-id header it adds. */
  #begin(request: OutgoingRequest, options: SendOptions): { exchange: Exchange; extra: Record<string, string> } {
    const own = ownRequestId(request.headers);
    const requestId = own ?? (options.requestId === false ? undefined : newRequestId());
    const exchange: Exchange = {
      request,
      path: pathOf(request.target),
      startedAt: new Date().toISOString(),
      durationMs: 0,
      ...(options.setup ? { setup: true } : {}),
      requestId,
    };
    if (options.record !== false) this.exchanges.push(exchange);
    this.audited.push(exchange);
    const extra: Record<string, string> = requestId === undefined || own !== undefined ? {} : { [REQUEST_ID_HEADER]: requestId };
    return { exchange, extra };
  }

  /** Sends the exchange's request (on `socket` when given) and records its answer or error and its duration. */
  async #complete(exchange: Exchange, extra: Record<string, string>, timeoutMs: number, socket?: net.Socket): Promise<void> {
    const started = performance.now();
    exchange.startedAt = new Date().toISOString();
    try {
      exchange.answer = await this.#roundTrip(exchange.request, extra, timeoutMs, socket);
    } catch (error) {
      exchange.error = error instanceof Error ? error.message : String(error);
    }
    exchange.durationMs = Math.round(performance.now() - started);
  }

  /** A new connection to the target, once it is established. */
  #connect(timeoutMs: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: this.#base.hostname, port: Number(this.#base.port || 80) });
      const timer = setTimeout(() => socket.destroy(new Error(`${TIMEOUT_MESSAGE} ${timeoutMs} ms (connecting)`)), timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  #roundTrip(request: OutgoingRequest, extra: Record<string, string>, timeoutMs: number, socket?: net.Socket): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | string[]> = { ...request.headers, ...extra };
      if (request.method !== 'GET' && request.method !== 'HEAD') headers['content-length'] = '0';
      const outgoing = http.request(
        {
          ...(socket ? { createConnection: () => socket } : { agent }),
          protocol: this.#base.protocol,
          hostname: this.#base.hostname,
          port: this.#base.port,
          method: request.method,
          path: request.target,
          headers,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve(toAnswer(response, Buffer.concat(chunks))));
          response.on('error', (error) => reject(new Error(`${CUT_OFF_MESSAGE}: ${error.message}`)));
        },
      );
      const timer = setTimeout(() => outgoing.destroy(new Error(`${TIMEOUT_MESSAGE} ${timeoutMs} ms`)), timeoutMs);
      outgoing.on('error', reject);
      outgoing.on('close', () => clearTimeout(timer));
      outgoing.end();
    });
  }
}
