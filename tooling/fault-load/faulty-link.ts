// A TCP proxy between the server and its store that holds, cuts and loses traffic on command: the fault load's network.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** One proxied connection: the server's side and the store's side, each direction holdable on its own. */
interface Link {
  client: Socket;
  upstream: Socket;
  /** Chunks held back per direction, released in order. */
  held: { up: Buffer[]; down: Buffer[] };
  holding: { up: boolean; down: boolean };
  /** Replies from the store are dropped from now on (the connection is destroyed soon after). */
  losing: boolean;
}

/** What the link did, for the report. */
export interface LinkFaults {
  heldRequests: number;
  heldReplies: number;
  cut: number;
  lostReplies: number;
  stalls: number;
}

/**
 * Forwards every connection to `target` (Redis or PostgreSQL) and, on command, holds one direction of a connection
 * (requests reach the store late, or replies reach the server late), cuts a connection, loses a connection's replies
 * (the store applies what it got; the answers never come back, then the connection dies), or stalls every connection
 * in both directions for a while, as a paused store would.
 */
export class FaultyLink {
  #server: Server | undefined;
  readonly #links = new Set<Link>();
  readonly faults: LinkFaults = { heldRequests: 0, heldReplies: 0, cut: 0, lostReplies: 0, stalls: 0 };
  /** The loopback port it listens on, once started. */
  port = 0;

  constructor(readonly target: { host: string; port: number }) {}

  /** Listens on a free loopback port; resolves that port. */
  async start(): Promise<number> {
    this.#server = createServer((client) => this.#accept(client));
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this.port;
  }

  /** Open connections. */
  get connections(): number {
    return this.#links.size;
  }

  #accept(client: Socket): void {
    const upstream = connect(this.target);
    const link: Link = { client, upstream, held: { up: [], down: [] }, holding: { up: false, down: false }, losing: false };
    this.#links.add(link);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.#links.delete(link);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => (link.holding.up ? link.held.up.push(chunk) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => {
      if (link.losing) return;
      if (link.holding.down) link.held.down.push(chunk);
      else client.write(chunk);
    });
  }

  #pick(choose: (n: number) => number): Link | undefined {
    const links = [...this.#links];
    return links.length === 0 ? undefined : links[choose(links.length)];
  }

  /** Holds the requests (`up`) or the replies (`down`) of one connection for `ms`, then forwards them in order. */
  hold(direction: 'up' | 'down', ms: number, choose: (n: number) => number): void {
    const link = this.#pick(choose);
    if (link === undefined || link.holding[direction]) return;
    this.faults[direction === 'up' ? 'heldRequests' : 'heldReplies']++;
    link.holding[direction] = true;
    setTimeout(() => release(link, direction), ms);
  }

  /** Destroys one connection, both sides, whatever is in flight. */
  cut(choose: (n: number) => number): void {
    const link = this.#pick(choose);
    if (link === undefined) return;
    this.faults.cut++;
    link.client.destroy();
    link.upstream.destroy();
  }

  /** Drops every reply of one connection from now on and destroys it after `ms`: the store applied what it got, nobody heard. */
  loseReplies(ms: number, choose: (n: number) => number): void {
    const link = this.#pick(choose);
    if (link === undefined || link.losing) return;
    this.faults.lostReplies++;
    link.losing = true;
    link.held.down = [];
    setTimeout(() => {
      link.client.destroy();
      link.upstream.destroy();
    }, ms);
  }

  /** Holds every connection in both directions for `ms` (a paused store or network), then forwards what waited. */
  stall(ms: number): void {
    this.faults.stalls++;
    const links = [...this.#links];
    for (const link of links) link.holding.up = link.holding.down = true;
    setTimeout(() => {
      for (const link of links) {
        release(link, 'up');
        release(link, 'down');
      }
    }, ms);
  }

  /** Destroys every connection and stops listening. */
  async close(): Promise<void> {
    for (const link of this.#links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

/** Forwards what one direction of `link` held back, in order, and forwards again from now on. */
function release(link: Link, direction: 'up' | 'down'): void {
  link.holding[direction] = false;
  const to = direction === 'up' ? link.upstream : link.client;
  for (const chunk of link.held[direction].splice(0)) if (!link.losing || direction === 'up') to.write(chunk);
}
