// How the gateway sends a request to its upstream, on node:http: the request target exactly as the gateway decided, hop-by-hop headers dropped both ways, one timeout, failures told apart (502) from timeouts (504).
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';

/**
 * Header fields that describe one connection rather than the message (RFC 9110 §7.6.1, RFC 9112 §7 and §9.6, and the
 * legacy `Keep-Alive` and `Proxy-Connection`): never forwarded in either direction, nor any field the `Connection`
 * header names. `Expect` is answered by the gateway's own HTTP server (it sends `100 Continue`) and goes no further.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/** The field names a `Connection` header lists (`Connection: close, X-Foo` names `close` and `x-foo`), lowercase. */
function connectionOptions(value: string | string[] | undefined): Set<string> {
  const names = new Set<string>();
  for (const line of [value ?? []].flat()) {
    for (const name of line.split(',')) {
      const trimmed = name.trim().toLowerCase();
      if (trimmed !== '') names.add(trimmed);
    }
  }
  return names;
}

/** `headers` without the hop-by-hop fields and those its `Connection` header names. */
export function endToEnd<T extends IncomingHttpHeaders | OutgoingHttpHeaders>(headers: T): T {
  const named = connectionOptions(headers.connection as string | string[] | undefined);
  const out = {} as Record<string, unknown>;
  for (const name in headers) {
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out[name] = headers[name];
  }
  return out as T;
}

/** Whether a request carries a body by its framing (RFC 9112 §6.3): a `Transfer-Encoding`, or a `Content-Length` above 0. */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Why the upstream gave no answer: `timedOut` when it took longer than the timeout (504), else it failed (502). */
export class UpstreamFailure extends Error {
  readonly timedOut: boolean;
  constructor(timedOut: boolean, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'UpstreamFailure';
    this.timedOut = timedOut;
  }
}

/** The upstream's answer: its status, its end-to-end headers and its body, streamed. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

/** One request to the upstream: the target in origin-form (or `*`), the headers to send as they are, and the body to stream. */
export interface UpstreamRequest {
  method: string;
  target: string;
  headers: OutgoingHttpHeaders;
  body: Readable | undefined;
}

/** Sends requests to one upstream over kept-alive connections. */
export interface UpstreamForwarder {
  /**
   * Sends `request`; `done` is called once, with the answer's head as soon as it arrives, or with the failure that
   * prevented it. After the head, a body that stalls longer than the timeout is destroyed with an UpstreamFailure.
   * Returns the request, for the caller to destroy when its client goes away.
   */
  send(request: UpstreamRequest, done: (failure: UpstreamFailure | undefined, answer?: UpstreamAnswer) => void): ClientRequest;
  /** Closes the kept-alive connections, once the requests under way are finished (their answers read to the end or failed). */
  close(): void;
}

/**
 * A forwarder to `upstream` (`http(s)://host:port`, an optional path prefixed to every target but `*`): `timeoutMs`
 * bounds the wait for the answer's head (connecting included), then each pause of its body. The target is sent as
 * given, not parsed, decoded or normalised, and `Host` is the upstream's.
 */
export function createUpstreamForwarder(upstream: string, timeoutMs: number): UpstreamForwarder {
  const base = new URL(upstream);
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const hostname = base.hostname.startsWith('[') ? base.hostname.slice(1, -1) : base.hostname;
  const port = base.port === '' ? (secure ? 443 : 80) : Number(base.port);
  const prefix = base.pathname.replace(/\/$/, '');
  let underWay = 0;
  let closing = false;
  return {
    send(request, done) {
      underWay++;
      let answered = false;
      const finish = (failure: UpstreamFailure | undefined, answer?: UpstreamAnswer): void => {
        if (answered) return;
        answered = true;
        clearTimeout(headTimer);
        done(failure, answer);
      };
      const path = request.target === '*' ? '*' : `${prefix}${request.target}`;
      const outgoing = send({ host: hostname, port, method: request.method, path, headers: { ...request.headers, host: base.host }, agent, setHost: false });
      // Emitted once the answer was read to its end, or the connection ended before.
      outgoing.once('close', () => {
        underWay--;
        if (closing && underWay === 0) agent.destroy();
      });
      const headTimer = setTimeout(() => outgoing.destroy(new UpstreamFailure(true, `the upstream sent no answer within ${timeoutMs} ms`)), timeoutMs);
      outgoing.on('error', (error) => finish(error instanceof UpstreamFailure ? error : new UpstreamFailure(false, `the upstream failed: ${error.message}`, error)));
      outgoing.on('response', (response) => {
        response.setTimeout(timeoutMs, () => response.destroy(new UpstreamFailure(true, `the upstream's answer stalled for ${timeoutMs} ms`)));
        finish(undefined, { status: response.statusCode ?? 502, headers: endToEnd(response.headers), body: response });
      });
      if (request.body === undefined) outgoing.end();
      else {
        request.body.on('error', (error) => outgoing.destroy(error));
        request.body.pipe(outgoing);
      }
      return outgoing;
    },
    close() {
      closing = true;
      if (underWay === 0) agent.destroy();
    },
  };
}
