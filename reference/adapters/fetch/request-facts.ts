// What a Web-standard adapter reads of a request besides the `Request`: the target as received and the client's address, where the runtime keeps them.

/** The node:http request `@hono/node-server` hands a fetch handler as `env.incoming`, as far as the adapter reads it. */
export interface NodeIncoming {
  url: string;
  socket?: { remoteAddress?: string | undefined } | undefined;
}

/** A value's member, read without trusting the value's shape. */
function member(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * The node:http request behind a fetch handler's `env` on `@hono/node-server` (`{ incoming, outgoing }`, Hono's
 * `c.env`), when `env` carries one; undefined on other runtimes (Bun.serve, workerd, Next.js).
 */
export function nodeIncomingOf(env: unknown): NodeIncoming | undefined {
  const incoming = member(env, 'incoming');
  const url = member(incoming, 'url');
  if (typeof url !== 'string') return undefined;
  const address = member(member(incoming, 'socket'), 'remoteAddress');
  return { url, socket: { remoteAddress: typeof address === 'string' ? address : undefined } };
}

/**
 * The origin-form target of a URL (`/api/%77eather?x=1`): what a runtime that hands over only `request.url` still
 * says of the target. Its URL parser has already normalised it: dot segments are removed, `\` is `/` and the fragment
 * is gone, so the gate cannot see that such a target was ambiguous (CR-4.10); the gate and the router then read the
 * same normalised path, so they still agree (CR-4.9).
 */
export function urlTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * The request target as received: the node:http request's own (`env.incoming.url` on `@hono/node-server`), else the
 * path and query of `request.url` (see {@link urlTarget}).
 */
export function requestTargetOf(request: Request, env: unknown): string {
  return nodeIncomingOf(env)?.url ?? urlTarget(request.url);
}

/** The client's address the runtime knows without a proxy: the socket's peer on `@hono/node-server`, else undefined. */
export function peerAddressOf(env: unknown): string | undefined {
  return nodeIncomingOf(env)?.socket?.remoteAddress;
}
