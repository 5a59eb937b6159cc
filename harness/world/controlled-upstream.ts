// The kit's controlled upstream (capability `gateway`): the profile's handlers on node:http, faults armed per request id, and what reached it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Profile } from './parameters.ts';
import { UpstreamHandlers } from './upstream-handlers.ts';

/** The header by which the upstream tells requests apart (the kit sends a unique one with every request). */
const REQUEST_ID_HEADER = 'conformance-request-id';

/** How many request ids the upstream remembers what reached it for. */
const KEPT_IDS = 10_000;

/**
 * What the upstream does with a request whose id has a fault armed, once it read the request: `reset` destroys the
 * connection with a TCP reset, `close` closes it (FIN) without a byte of answer, `stall` answers nothing until the
 * gateway gives up (then the connection closes), `invalid` sends bytes that are not an HTTP answer and closes, `cut`
 * runs the handler and sends its status line, headers and half its body, then closes (the answer broke off after its
 * status line, CR-15.3).
 */
export type UpstreamFault = 'reset' | 'close' | 'stall' | 'invalid' | 'cut';

/** How long a cut answer's head and first half stay on the connection before it closes, for the gateway to pass them on. */
const CUT_AFTER_MS = 50;

/** One request as it reached the upstream. */
export interface UpstreamArrival {
  method: string;
  /** The request target as received, not decoded. */
  target: string;
  /** The header fields, names lowercased (repeated fields joined as node:http joins them). */
  headers: Record<string, string | string[] | undefined>;
  /** The fault it met, if one was armed for its id. */
  fault?: UpstreamFault;
}

/** The upstream the kit owns while a run that declares `gateway` lasts; the target is started in front of it. */
export class ControlledUpstream {
  readonly handlers: UpstreamHandlers;
  readonly #server: Server;
  readonly #faults = new Map<string, UpstreamFault>();
  readonly #answerHeaders = new Map<string, Record<string, string>>();
  readonly #arrivals = new Map<string, UpstreamArrival[]>();
  readonly #sockets = new Set<Socket>();
  #port = 0;
  #host = '127.0.0.1';
  #refusing = false;

  private constructor(profile: Profile) {
    this.handlers = new UpstreamHandlers(profile);
    this.#server = createServer((request, response) => this.#handle(request, response));
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts an upstream serving `profile`'s handlers on a free port of `host`. */
  static async start(profile: Profile, host = '127.0.0.1'): Promise<ControlledUpstream> {
    const upstream = new ControlledUpstream(profile);
    upstream.#host = host;
    await upstream.#listen(0);
    return upstream;
  }

  /** Its base URL, `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://${this.#host}:${this.#port}`;
  }

  /** Arms `fault` for every request that carries `requestId` from now on. */
  arm(requestId: string, fault: UpstreamFault): void {
    this.#faults.set(requestId, fault);
  }

  /** Adds `headers` to the upstream's answer to the request carrying `requestId` (e.g. a `payment-response` of its own). */
  answerWith(requestId: string, headers: Record<string, string>): void {
    this.#answerHeaders.set(requestId, headers);
  }

  /** Every arrival of a request carrying `requestId` (none: the request never reached the upstream). */
  arrivals(requestId: string): UpstreamArrival[] {
    return this.#arrivals.get(requestId) ?? [];
  }

  /** Whether connections are refused now. */
  get refusing(): boolean {
    return this.#refusing;
  }

  /** Stops listening and closes every connection: until {@link acceptConnections}, connecting is refused. */
  async refuseConnections(): Promise<void> {
    if (this.#refusing) return;
    this.#refusing = true;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /** Listens again on the same port. */
  async acceptConnections(): Promise<void> {
    if (!this.#refusing) return;
    await this.#listen(this.#port);
    this.#refusing = false;
  }

  /** Forgets the faults and answer headers armed so far (what reached it is kept). */
  disarm(): void {
    this.#faults.clear();
    this.#answerHeaders.clear();
  }

  /** Stops for good: stalled requests and kept-alive connections are closed. */
  async close(): Promise<void> {
    const closed = this.#refusing ? Promise.resolve() : new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#refusing = true;
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, this.#host, () => {
        this.#server.off('error', reject);
        this.#port = (this.#server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  #record(requestId: string, arrival: UpstreamArrival): void {
    const list = this.#arrivals.get(requestId) ?? [];
    list.push(arrival);
    this.#arrivals.delete(requestId);
    this.#arrivals.set(requestId, list);
    if (this.#arrivals.size > KEPT_IDS) this.#arrivals.delete(this.#arrivals.keys().next().value ?? '');
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const header = request.headers[REQUEST_ID_HEADER];
    const requestId = Array.isArray(header) ? header[0] : header;
    const fault = requestId === undefined ? undefined : this.#faults.get(requestId);
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    if (requestId !== undefined) this.#record(requestId, { method, target, headers: { ...request.headers }, ...(fault ? { fault } : {}) });
    // The request is read to its end first: the fault meets a request the upstream has received whole.
    request.resume();
    request.once('end', () => {
      if (fault !== undefined && fault !== 'cut') return ControlledUpstream.#fail(request.socket, fault);
      const { status, body } = this.handlers.answer(method, target, requestId);
      const data = Buffer.from(JSON.stringify(body));
      const extra = requestId === undefined ? {} : (this.#answerHeaders.get(requestId) ?? {});
      response.writeHead(status, { ...extra, 'content-type': 'application/json; charset=utf-8', 'content-length': String(data.length) });
      if (fault === 'cut') {
        // The head and half the body, then the connection ends: the body never completes.
        response.write(data.subarray(0, Math.floor(data.length / 2)), () => setTimeout(() => request.socket.destroy(), CUT_AFTER_MS));
        return;
      }
      response.end(method === 'HEAD' ? undefined : data);
    });
  }

  static #fail(socket: Socket, fault: UpstreamFault): void {
    if (fault === 'reset') socket.resetAndDestroy();
    else if (fault === 'close') socket.destroy();
    else if (fault === 'invalid') socket.end('this is not an HTTP answer\r\n\r\n');
    // stall: nothing; the gateway's timeout closes the connection (or close() does).
  }
}

const RUN_UPSTREAM = Symbol.for('credit402-conformance.controlledUpstream');
const registry = globalThis as { [RUN_UPSTREAM]?: ControlledUpstream };

/** Makes `upstream` the run's (the runner, before the suite); undefined: none. */
export function setRunUpstream(upstream: ControlledUpstream | undefined): void {
  registry[RUN_UPSTREAM] = upstream;
}

/** The run's controlled upstream, when the runner started one in this process. */
export function runUpstream(): ControlledUpstream | undefined {
  return registry[RUN_UPSTREAM];
}
