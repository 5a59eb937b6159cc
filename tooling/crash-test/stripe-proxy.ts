// A pass-through proxy between the server and the Stripe emulator that can hold a charge's answer to kill the server first.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Forwards every request to the emulator. The upstream request is never aborted when the server dies
 * (Stripe does not notice a client crash either), so a charge held by an emulator `delay` fault still
 * executes after a kill. `armKillAfterCharge(hook)` runs `hook` once, after the emulator answered the
 * next PaymentIntent creation and before that answer is forwarded: the server dies between charge and credit.
 */
export class StripeProxy {
  #server: Server | undefined;
  #inFlight = 0;
  #idle: Array<() => void> = [];
  #hook: (() => Promise<void>) | undefined;
  url = '';

  constructor(readonly target: string) {}

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.#forward(req, res));
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  armKillAfterCharge(hook: () => Promise<void>): void {
    this.#hook = hook;
  }

  disarm(): void {
    this.#hook = undefined;
  }

  /** Resolves when no forwarded request is outstanding. */
  idle(): Promise<void> {
    return this.#inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#inFlight++;
    try {
      const body = await read(req);
      const upstream = await send(this.target, req, body);
      const hook = req.method === 'POST' && req.url?.startsWith('/v1/payment_intents') ? this.#hook : undefined;
      if (hook) {
        this.#hook = undefined;
        await hook();
      }
      if (!res.destroyed) res.writeHead(upstream.status, upstream.headers).end(upstream.body);
    } catch {
      res.destroy();
    } finally {
      if (--this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }
}

async function read(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(target: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: new URL(target).host, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    const upstream = request(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers }, (response) => {
      read(response).then(
        (data) => {
          const out: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && name !== 'transfer-encoding') out[name] = value;
          out['content-length'] = String(data.length);
          resolve({ status: response.statusCode ?? 502, headers: out, body: data });
        },
        reject,
      );
    });
    upstream.on('error', reject);
    upstream.end(body);
  });
}
