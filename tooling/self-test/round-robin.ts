// A tiny loopback HTTP balancer for the multi-instance self-test: each request goes to the next of N upstreams, bytes unchanged.
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startRoundRobin}. */
export interface RoundRobinOptions {
  /** Base URLs of the upstreams, `http://127.0.0.1:<port>`; requests go to them in turn. */
  upstreams: readonly string[];
  /** Listening port on 127.0.0.1; default 0 (a free port). */
  port?: number;
  /**
   * Paths (without query) whose `GET` goes to every upstream at once, answered with the sum of their JSON counts: the
   * handler-run counts of `/_conformance/handled` are kept per process, so a request served by one instance is counted
   * there only, and only the sum says how often its handler ran in the whole deployment. Default none.
   */
  summedPaths?: readonly string[];
}

/** A running balancer. */
export interface RoundRobin {
  url: string;
  /** Requests forwarded to each upstream so far (by index of `upstreams`; summed requests are not counted). */
  readonly forwarded: readonly number[];
  close(): Promise<void>;
}

/** Headers of one connection, not of the message: never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** `raw` (a `rawHeaders` list: name, value, name, value…) without the hop-by-hop headers, order and repeats kept. */
function endToEnd(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.push(name, raw[i + 1] ?? '');
  }
  return out;
}

function fail(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `round-robin balancer: ${message}` }));
}

/** Answers `GET <summed path>` with the sum of every upstream's answer (a JSON object of numbers), or the first answer that is not one. */
async function summed(upstreams: readonly string[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  const answers = await Promise.all(upstreams.map(async (base) => {
    const response = await fetch(new URL(req.url ?? '/', base), { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, type: response.headers.get('content-type') ?? 'text/plain', text: await response.text() };
  }));
  const total: Record<string, number> = {};
  for (const answer of answers) {
    let counts: unknown;
    try {
      counts = JSON.parse(answer.text);
    } catch {
      counts = undefined;
    }
    const numbers = answer.status === 200 && typeof counts === 'object' && counts !== null && !Array.isArray(counts)
      && Object.values(counts).every((value) => typeof value === 'number');
    if (!numbers) {
      res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.text);
      return;
    }
    for (const [key, value] of Object.entries(counts as Record<string, number>)) total[key] = (total[key] ?? 0) + value;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(total));
}

/** Starts the balancer on 127.0.0.1. A client that goes away before its answer aborts the upstream request too. */
export async function startRoundRobin(options: RoundRobinOptions): Promise<RoundRobin> {
  const upstreams = options.upstreams.map((base) => new URL(base));
  if (upstreams.length === 0) throw new Error('round-robin balancer: no upstream');
  const summedPaths = new Set(options.summedPaths ?? []);
  const agent = new Agent({ keepAlive: true });
  const forwarded = upstreams.map(() => 0);
  let next = 0;

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const index = next;
    next = (next + 1) % upstreams.length;
    forwarded[index] = (forwarded[index] ?? 0) + 1;
    const upstream = upstreams[index] as URL;
    const outgoing = httpRequest({
      agent,
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: endToEnd(req.rawHeaders),
    });
    outgoing.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    outgoing.on('error', (error) => fail(res, 502, `upstream ${upstream.host}: ${error.message}`));
    // The client gave up (or the connection broke) before the whole answer: the upstream sees its request go away too.
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && summedPaths.has(path)) {
      summed(options.upstreams, req, res).catch((error: unknown) => fail(res, 502, `summing ${path}: ${(error as Error).message}`));
      return;
    }
    forward(req, res);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
