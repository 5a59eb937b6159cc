// Test helper: a TCP proxy that stops forwarding in both directions without closing anything, as a SIGSTOP'd server or a stalled network would.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to `target` (Redis in the tests) that can stop forwarding in both directions without closing anything,
 * like a SIGSTOP: what is sent while frozen reaches the other side, in order, when it thaws.
 */
export class FreezingProxy {
  #server: Server | undefined;
  #frozen = false;
  #held: Array<() => void> = [];
  readonly #sockets = new Set<Socket>();

  /**
   * `template` (default `REDIS_URL`) is the URL of the target whose scheme, credentials, database number and options
   * the proxy's URL keeps when it names the target's host and port.
   */
  constructor(
    readonly target: { host: string; port: number },
    readonly template: string | undefined = process.env.REDIS_URL,
  ) {}

  /**
   * Listens on a free loopback port; resolves the proxy's URL: {@link template} with the proxy's address in place of
   * the target's (`redis://:secret@127.0.0.1:<port>/3` for `REDIS_URL=redis://:secret@127.0.0.1:6379/3`: the same
   * database, not database 0), or `redis://127.0.0.1:<port>` when the template names another server.
   */
  async start(): Promise<string> {
    this.#server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => this.#sockets.delete(socket));
      }
      const forward = (to: Socket) => (chunk: Buffer) => {
        if (this.#frozen) this.#held.push(() => to.write(chunk));
        else to.write(chunk);
      };
      client.on('data', forward(upstream));
      upstream.on('data', forward(client));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    return this.#urlOf((this.#server.address() as AddressInfo).port);
  }

  /** The proxy's URL on `port`: the template's, when it names the target, with the proxy's address. */
  #urlOf(port: number): string {
    const template = this.template !== undefined && URL.canParse(this.template) ? new URL(this.template) : undefined;
    const namesTarget = template !== undefined && /^rediss?:$/.test(template.protocol)
      && template.hostname === this.target.host && Number(template.port || 6379) === this.target.port;
    if (!namesTarget) return `redis://127.0.0.1:${port}`;
    template.hostname = '127.0.0.1';
    template.port = String(port);
    return template.href;
  }

  /** Holds everything back from now on. */
  freeze(): void {
    this.#frozen = true;
  }

  /** Forwards what was held back, in order, then forwards again. */
  thaw(): void {
    this.#frozen = false;
    for (const send of this.#held.splice(0)) send();
  }

  /** Thaws, drops every connection and stops listening. */
  async close(): Promise<void> {
    this.thaw();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}
