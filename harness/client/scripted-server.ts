// The kit's scripted 402 server of the client mode: one in-process node:http server on two loopback ports (origins A and B) that records every request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ledger, type Charge, type OriginName } from './ledger.ts';
import type { Script } from './script.ts';
import { SeedGate } from './seed-gate.ts';
import { decodePayment, PAYMENT_HEADER } from './wire.ts';

/** A request the scripted server received, with its answer. */
export interface RecordedRequest {
  /** 1, 2, … in order of arrival. */
  seq: number;
  origin: OriginName;
  method: string;
  /** The request target as received: path and query. */
  target: string;
  headers: Record<string, string>;
  body: string;
  /** The `payment` header as received. */
  paymentRaw?: string;
  /** The payload it decodes to (undefined when absent or malformed). */
  payment?: Record<string, unknown>;
  status: number;
  /** What the answer was: `challenge`, `insufficient_credits`, `charged`, `served`, a payment error code, `free 404`… */
  outcome: string;
}

const ORIGINS: readonly OriginName[] = ['A', 'B'];

/** The port each origin listens on; absent or 0: a free port. */
export type ScriptedServerPorts = Partial<Record<OriginName, number>>;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** The scripted server; {@link ScriptedServer.start} listens on both origins. */
export class ScriptedServer {
  readonly ledger = new Ledger();
  readonly requests: RecordedRequest[] = [];
  /** The scenario's knobs; {@link reset} empties them. */
  script: Script = {};
  readonly #gate = new SeedGate(this.ledger, () => this.script);
  readonly #servers: Server[] = [];
  readonly #urls = new Map<OriginName, string>();

  /**
   * Starts a server listening on two loopback ports, one per origin: `ports.A` and `ports.B` when given, a free port
   * for an origin given none (or 0). Rejects when a given port cannot be bound, with the servers started closed.
   */
  static async start(ports: ScriptedServerPorts = {}, host = '127.0.0.1'): Promise<ScriptedServer> {
    const server = new ScriptedServer();
    for (const origin of ORIGINS) {
      const http = createServer((request, response) => void server.#handle(origin, request, response));
      http.keepAliveTimeout = 1000;
      server.#servers.push(http);
      const port = ports[origin] ?? 0;
      await new Promise<void>((resolve, reject) => {
        http.once('error', (error) => {
          void server.close().then(() => reject(new Error(`the scripted server could not listen on ${host}:${port} for server ${origin}: ${error.message}`)));
        });
        http.listen(port, host, () => resolve());
      });
      server.#urls.set(origin, `http://${host}:${(http.address() as AddressInfo).port}`);
    }
    return server;
  }

  /** The base URL of an origin, e.g. `http://127.0.0.1:41234`. */
  url(origin: OriginName): string {
    const url = this.#urls.get(origin);
    if (url === undefined) throw new Error(`the scripted server does not listen for origin ${origin}`);
    return url;
  }

  /** The charges made so far. */
  get charges(): readonly Charge[] {
    return this.ledger.charges;
  }

  /** Before each scenario: no knobs, no balances, no records. */
  reset(): void {
    this.script = {};
    this.ledger.clear();
    this.requests.length = 0;
  }

  async #handle(origin: OriginName, request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const body = await readBody(request);
      const target = request.url ?? '/';
      const paymentRaw = request.headers[PAYMENT_HEADER];
      const raw = Array.isArray(paymentRaw) ? paymentRaw.join(', ') : paymentRaw;
      const record: RecordedRequest = { seq: this.requests.length + 1, origin, method: request.method ?? 'GET', target, headers: headersOf(request), body, status: 0, outcome: 'in flight' };
      if (raw !== undefined) {
        record.paymentRaw = raw;
        const decoded = decodePayment(raw);
        if (decoded.ok) record.payment = decoded.payload;
      }
      this.requests.push(record);
      const path = new URL(target, 'http://kit').pathname;
      const answer = await this.#gate.answer({ origin, method: record.method, path, target, body, ...(raw !== undefined ? { payment: raw } : {}) });
      Object.assign(record, { status: answer.status, outcome: answer.outcome });
      response.writeHead(answer.status, answer.headers).end(answer.body);
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`scripted server error: ${(error as Error).message}`);
    }
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    await Promise.all(
      this.#servers.map(
        (http) =>
          new Promise<void>((resolve) => {
            http.close(() => resolve());
            http.closeAllConnections();
          }),
      ),
    );
  }
}
