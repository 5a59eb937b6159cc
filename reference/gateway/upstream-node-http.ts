// The gateway's requests to its upstream on node:http, for the asterisk-form target (`OPTIONS *`) that undici does not send.
import { Agent as HttpAgent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { UpstreamFailure, type UpstreamAnswer, type UpstreamRequest, type UpstreamSender } from './upstream-call.ts';

/** The header fields of `request` as node:http takes them, `Host` the upstream's; a body without a length goes chunked. */
function outgoingHeaders(request: UpstreamRequest, host: string): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (let i = 0; i + 1 < request.headers.length; i += 2) {
    const [name, value] = [request.headers[i] as string, request.headers[i + 1] as string];
    const before = headers[name];
    headers[name] = before === undefined ? value : [...[before].flat().map(String), value];
  }
  headers.host = host;
  if (request.body !== undefined && headers['content-length'] === undefined) headers['transfer-encoding'] = 'chunked';
  return headers;
}

/**
 * Sends to the upstream at `base` over kept-alive node:http connections: `timeoutMs` bounds the wait for the answer's
 * head (connecting included), then each pause of its body.
 */
export function createNodeHttpSender(base: URL, timeoutMs: number): UpstreamSender {
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const hostname = base.hostname.startsWith('[') ? base.hostname.slice(1, -1) : base.hostname;
  const port = base.port === '' ? (secure ? 443 : 80) : Number(base.port);
  let underWay = 0;
  let closed: (() => void) | undefined;
  return {
    send(request, path, done) {
      let answered = false;
      const finish = (failure: UpstreamFailure | undefined, answer?: UpstreamAnswer): void => {
        if (answered) return;
        answered = true;
        clearTimeout(headTimer);
        done(failure, answer);
      };
      let outgoing: ReturnType<typeof send>;
      try {
        outgoing = send({ host: hostname, port, method: request.method, path, headers: outgoingHeaders(request, base.host), agent, setHost: false });
      } catch (error) {
        // A header or target node:http refuses to send: the upstream never saw the request.
        done(new UpstreamFailure(false, `the request could not be sent: ${error instanceof Error ? error.message : String(error)}`, error));
        return { destroy: () => {} };
      }
      underWay++;
      // Emitted once the answer was read to its end, or the connection ended before.
      outgoing.once('close', () => {
        underWay--;
        if (closed !== undefined && underWay === 0) closed();
      });
      const headTimer = setTimeout(() => outgoing.destroy(new UpstreamFailure(true, `the upstream sent no answer within ${timeoutMs} ms`)), timeoutMs);
      outgoing.on('error', (error) => finish(error instanceof UpstreamFailure ? error : new UpstreamFailure(false, `the upstream failed: ${error.message}`, error)));
      outgoing.on('response', (response) => {
        response.setTimeout(timeoutMs, () => response.destroy(new UpstreamFailure(true, `the upstream's answer stalled for ${timeoutMs} ms`)));
        finish(undefined, { status: response.statusCode ?? 502, headers: response.headers, body: response });
      });
      if (request.body === undefined) outgoing.end();
      else {
        request.body.on('error', (error) => outgoing.destroy(error));
        request.body.pipe(outgoing);
      }
      return { destroy: () => outgoing.destroy() };
    },
    close() {
      return new Promise<void>((resolve) => {
        closed = () => {
          agent.destroy();
          resolve();
        };
        if (underWay === 0) closed();
      });
    },
  };
}
