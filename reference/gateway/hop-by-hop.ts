// Header fields that describe one connection, not the message (RFC 9110 §7.6.1): what the gateway never forwards, either way.

/**
 * Header fields that describe one connection rather than the message (RFC 9110 §7.6.1, RFC 9112 §7 and §9.6, and the
 * legacy `Keep-Alive` and `Proxy-Connection`): never forwarded in either direction, nor any field the `Connection`
 * header names. `Expect` is answered by the gateway's own HTTP server (it sends `100 Continue`) and goes no further.
 */
export const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/**
 * The field names a `Connection` header lists beside `close` and `keep-alive` (`Connection: close, X-Foo` names
 * `x-foo`), lowercase; undefined when it names none, as most do (no header, `keep-alive`, `close`).
 */
export function connectionOptions(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined || value === 'keep-alive' || value === 'close') return undefined;
  let names: Set<string> | undefined;
  for (const line of typeof value === 'string' ? [value] : value) {
    for (const name of line.split(',')) {
      const trimmed = name.trim().toLowerCase();
      if (trimmed === '' || trimmed === 'close' || trimmed === 'keep-alive') continue;
      names ??= new Set();
      names.add(trimmed);
    }
  }
  return names;
}
