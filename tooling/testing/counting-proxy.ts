// Test helper: an HTTP proxy in front of a target that shows each request and answer to a test, which counts them or takes a request over.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the test sees of the traffic through the proxy. */
export interface ProxyHooks {
  /** Each request, before it is forwarded; returns true when it took the request over (answered or dropped it). */
  onRequest?(req: IncomingMessage, res: ServerResponse): boolean;
  /** Each answer of the target, with its whole body, before it is relayed. */
  onAnswer?(req: IncomingMessage, status: number, body: Buffer): void;
}

/** A running proxy. */
export interface CountingProxy {
  url: string;
  /** Closes the proxy and every connection to it, including requests a hook holds unanswered. */
  close(): Promise<void>;
}

/** Starts a proxy that forwards every request to `target` (request target and headers as received) and relays the answer. */
export async function startCountingProxy(target: string, hooks: ProxyHooks): Promise<CountingProxy> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (hooks.onRequest?.(req, res)) return;
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        hooks.onAnswer?.(req, answer.statusCode ?? 502, body);
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(body);
      });
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
