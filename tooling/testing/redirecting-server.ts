// Test helper: the tiny credit402 server, answering redirects on chosen paths and recording every request as received.
import type { IncomingHttpHeaders, RequestListener } from 'node:http';
import { TinyCredit402Server } from './tiny-credit402-server.ts';

/** A redirect answered for a path: to every request, or (`paying`) only to those whose `payment` header names a payment method. */
export interface RedirectRule {
  status: number;
  location: string;
  paying?: boolean;
}

/** A request as the server received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** {@link TinyCredit402Server} that answers `redirects` before its gate, and records every request in `received`. */
export class RedirectingCredit402Server extends TinyCredit402Server {
  /** Path (with query) → the redirect answered there. */
  readonly redirects = new Map<string, RedirectRule>();
  received: ReceivedRequest[] = [];

  constructor() {
    super();
    const gate = this.server.listeners('request')[0] as RequestListener;
    this.server.removeAllListeners('request');
    this.server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        this.received.push({ method: request.method ?? '', path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        const rule = this.redirects.get(path);
        const paying = Buffer.from(String(request.headers.payment ?? ''), 'base64').toString('utf8').includes('paymentMethodId');
        if (rule !== undefined && (!rule.paying || paying)) return void response.writeHead(rule.status, { location: rule.location }).end();
        gate(request, response);
      });
    });
  }

  /** Forgets balances, charges, requests and received requests (the redirects stay). */
  override clear(): void {
    super.clear();
    this.received = [];
  }
}
