// Route keys (CR-4.2): of a request line as a scenario writes it (`GET /api/weather?city=Oslo`), and of a sent exchange.
import type { Exchange } from './exchange.ts';

/** A request as a scenario writes it: `GET /api/weather?city=Oslo`. */
interface RequestLine {
  method: string;
  target: string;
  /** The route key the target must match: method and path without the query (CR-4.2). */
  key: string;
}

/** Parses `METHOD target`. */
export function requestLine(text: string): RequestLine {
  const match = /^([A-Z][A-Z0-9_-]*) (\S+)$/.exec(text);
  if (!match) throw new Error(`not a request line "METHOD /path": ${text}`);
  const [, method = '', target = ''] = match;
  return { method, target, key: `${method} ${target.split(/[?#]/, 1)[0] ?? target}` };
}

/** The route key the target must match for an exchange: its method and its request path (CR-4.2). */
export function routeKeyOf(exchange: Exchange): string {
  return `${exchange.request.method} ${exchange.path}`;
}
