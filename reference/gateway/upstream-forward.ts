// How the gateway sends a request to its upstream: the request target exactly as the gateway decided, one timeout, failures told apart (502) from timeouts (504); undici's pool, node:http for the asterisk-form undici does not send.
import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamCall, UpstreamCallback, UpstreamRequest, UpstreamSender } from './upstream-call.ts';
import { createNodeHttpSender } from './upstream-node-http.ts';
import { createUndiciSender } from './upstream-undici.ts';

export { UpstreamFailure, type UpstreamAnswer, type UpstreamCall, type UpstreamCallback, type UpstreamRequest } from './upstream-call.ts';

/** Whether a request carries a body by its framing (RFC 9112 §6.3): a `Transfer-Encoding`, or a `Content-Length` above 0. */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Sends requests to one upstream over kept-alive connections. */
export interface UpstreamForwarder {
  /**
   * Sends `request`; `done` is called once, with the answer as soon as its head arrives (its body whole when it came
   * with the head, else a stream), or with the failure that prevented it. A streamed body that stalls longer than the
   * timeout, or breaks off, is destroyed with an UpstreamFailure.
   */
  send(request: UpstreamRequest, done: UpstreamCallback): UpstreamCall;
  /** Closes the kept-alive connections, once the requests under way are finished (their answers read to the end or failed). */
  close(): Promise<void>;
}

/**
 * A forwarder to `upstream` (`http(s)://host:port`, an optional path prefixed to every target but `*`): `timeoutMs`
 * bounds the wait for the answer's head (connecting included), then each pause of its body. The target is sent as
 * given, not parsed, decoded or normalised, and `Host` is the upstream's. Origin-form targets go through undici's
 * connection pool; the asterisk-form (`OPTIONS *`), which undici refuses to send, through node:http.
 */
export function createUpstreamForwarder(upstream: string, timeoutMs: number): UpstreamForwarder {
  const base = new URL(upstream);
  const prefix = base.pathname.replace(/\/$/, '');
  const pooled = createUndiciSender(base, timeoutMs);
  let asterisk: UpstreamSender | undefined;
  return {
    send(request, done) {
      if (request.target !== '*') return pooled.send(request, `${prefix}${request.target}`, done);
      asterisk ??= createNodeHttpSender(base, timeoutMs);
      return asterisk.send(request, '*', done);
    },
    async close() {
      await Promise.all([pooled.close(), asterisk?.close()]);
    },
  };
}
