// Types of `proxy-addr` (the client address behind proxies, as Express resolves it; the package ships none): what client-address.ts uses.
declare module 'proxy-addr' {
  import type { IncomingMessage } from 'node:http';

  /** Whether the hop `hop` (0: the socket's peer, then each X-Forwarded-For entry from the right) at `address` is a trusted proxy. */
  type Trust = (address: string, hop: number) => boolean;

  /** The client's address: the first hop, from the socket's peer leftwards through X-Forwarded-For, that `trust` does not trust. */
  function proxyaddr(req: IncomingMessage, trust: Trust | string | readonly string[]): string;

  namespace proxyaddr {
    /** Compiles addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`; throws a TypeError on anything else. */
    function compile(value: string | readonly string[]): Trust;
  }

  export = proxyaddr;
}
