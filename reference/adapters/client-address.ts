// The `trustProxy` option: which proxies may name the client's address in X-Forwarded-For, with the value forms of Express's `trust proxy` and Fastify's `trustProxy`.
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import { Credit402ConfigError } from '../config/config-error.ts';

/**
 * Which proxies in front of the server are trusted to say who the client is, as Express's `trust proxy` setting reads
 * it (resolved with the `proxy-addr` package, as Express and Fastify resolve theirs):
 * - `false` (the default): none; the client's address is the socket's peer (behind a proxy, the proxy's address);
 * - `true`: every hop; the client's address is the leftmost X-Forwarded-For entry, which the client itself may write:
 *   only when nothing but the proxy can reach the server and the proxy overwrites the header;
 * - a number `n`: the `n` hops nearest the server (the socket's peer, then X-Forwarded-For from the right); `1` for one
 *   load balancer that appends the address it saw;
 * - addresses and CIDR ranges, as a list or one comma-separated string (`"10.0.0.0/8, 192.0.2.1"`), and the names
 *   `loopback`, `linklocal` and `uniquelocal`: the hops from the right that are one of them;
 * - a function `(address, hop) => boolean` (library use): the hops it trusts.
 */
export type TrustProxy = boolean | number | string | string[] | ((address: string, hop: number) => boolean);

/** Reads a request's client address. */
export type ClientAddressReader = (req: IncomingMessage) => string | undefined;

/** The largest hop count: a chain of proxies longer than this is a mistake. */
const MAX_HOPS = 100;

function refuse(name: string, detail: string): never {
  throw new Credit402ConfigError(
    'ERR_TRUST_PROXY',
    `${name} must be true, false, a hop count from 0 to ${MAX_HOPS}, or proxy addresses and CIDR ranges (a list, or one comma-separated string; loopback, linklocal, uniquelocal): ${detail}`,
  );
}

/** The entries of a list value: each a non-empty string, trimmed. */
function entriesOf(value: string | readonly unknown[], name: string): string[] {
  const entries = typeof value === 'string' ? value.split(',') : value;
  return entries.map((entry) => {
    if (typeof entry !== 'string' || entry.trim() === '') return refuse(name, `got an empty or non-text entry in ${JSON.stringify(value)}`);
    return entry.trim();
  });
}

/** The trust function of a value, as `proxy-addr` compiles it; throws ERR_TRUST_PROXY naming `name` for anything else. */
function compileTrust(value: unknown, name: string): (address: string, hop: number) => boolean {
  if (value === true) return () => true;
  if (value === false) return () => false;
  if (typeof value === 'function') return value as (address: string, hop: number) => boolean;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0 || value > MAX_HOPS) return refuse(name, `got ${value}`);
    return (_address, hop) => hop < value;
  }
  if (typeof value !== 'string' && !Array.isArray(value)) return refuse(name, `got ${JSON.stringify(value) ?? String(value)}`);
  const entries = entriesOf(value, name);
  if (entries.length === 0) return () => false;
  try {
    return proxyaddr.compile(entries);
  } catch (error) {
    return refuse(name, (error as Error).message);
  }
}

/**
 * Checks a `trustProxy` value (undefined: not set); throws a Credit402ConfigError `ERR_TRUST_PROXY` naming `name`
 * (the option as the caller spells it) for anything but the forms of {@link TrustProxy}.
 */
export function validateTrustProxy(value: unknown, name = 'trustProxy'): TrustProxy | undefined {
  if (value === undefined) return undefined;
  compileTrust(value, name);
  return value as TrustProxy;
}

/**
 * A `trustProxy` value as a flag or an environment variable writes it: `true`, `false`, a hop count, else the
 * comma-separated addresses and ranges as given (checked by {@link validateTrustProxy}).
 */
export function parseTrustProxy(text: string): TrustProxy {
  const trimmed = text.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/**
 * The trust function of a `trustProxy` value, validated here (ERR_TRUST_PROXY), or `false` when no proxy is trusted:
 * what the reference server and the gateway hand Express (`trust proxy`) and Fastify (`trustProxy`), so that a value
 * means the same on every framework (Fastify 5 itself trusts nothing for a hop count).
 */
export function trustFunction(trustProxy: TrustProxy | undefined): ((address: string, hop: number) => boolean) | false {
  if (trustProxy === undefined || trustProxy === false) return false;
  return compileTrust(trustProxy, 'trustProxy');
}

/**
 * Builds the reader of the client's address for `trustProxy`, validated here (ERR_TRUST_PROXY): the socket's peer,
 * or with trusted proxies the address they name in X-Forwarded-For, as Express's `req.ip` resolves it. For
 * `applyCredit402(gate, req, res, { clientAddress: read(req) })` on plain `node:http`, where it sets the client address
 * the gate's `newPaymentRateLimit` counts by.
 */
export function createClientAddressReader(trustProxy: TrustProxy = false): ClientAddressReader {
  const trust = trustFunction(trustProxy);
  if (trust === false) return (req) => req.socket?.remoteAddress;
  return (req) => (req.socket?.remoteAddress === undefined ? undefined : proxyaddr(req, trust));
}
