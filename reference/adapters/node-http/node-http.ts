// The gate applied to a plain node:http request: answers it, or readies it for the application's router (the Express adapter builds on it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ambiguousTarget, type Gate, type GatedRoute, type GateRequest, readRequestTarget, routerTarget } from '../../gate/index.ts';
import type { PaymentResponse } from '../../protocol/types.ts';

export { createClientAddressReader, type ClientAddressReader, type TrustProxy } from '../client-address.ts';

/** A node:http request; `originalUrl` keeps the target as received when the adapter hands the router another one. */
export type GateIncomingMessage = IncomingMessage & { originalUrl?: string };

/** What the application does after the gate: nothing when it answered; otherwise route the request (paid when `payment` is set). */
export type AppliedGate = { answered: true } | { answered: false; payment?: PaymentResponse };

/** Where the request target comes from, for frameworks that rewrite `req.url`. */
export interface ApplyOptions {
  /** The request target to decide on; default `req.originalUrl`, else `req.url`. */
  target?: string;
  /** The prefix the framework already stripped from `req.url` (a mount path, Express's `req.baseUrl`); default none. */
  mountPath?: string;
  /**
   * The route the application's router already matched (`gate.defineRoute`, CR-4.15): the gate prices it instead of
   * matching its table, and `req.url` is left as it is, since the request is already routed.
   */
  route?: GatedRoute;
  /**
   * The client's address, which the gate's `newPaymentRateLimit` counts by; default `req.ip` when the framework set
   * it (Express, following its `trust proxy` setting), else the socket's peer. Behind a proxy on plain `node:http`:
   * `createClientAddressReader(trustProxy)(req)`.
   */
  clientAddress?: string | undefined;
}

const SLASH = 0x2f;

/** `target` without the mount prefix the framework stripped from `req.url`, as the framework would strip it. */
function withinMount(target: string, mountPath: string): string | undefined {
  if (mountPath === '') return target;
  if (!target.startsWith(mountPath)) return undefined;
  const rest = target.slice(mountPath.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Sets `req.url` to the request path the gate reads and the query (`/api/%77eather` → `/api/weather`), keeping the target as received in `req.originalUrl`. */
function routeAsTheGateReads(req: GateIncomingMessage, target: string, mountPath: string): void {
  // An origin-form target without percent-encodings reads as itself (the gate refused the ambiguous ones): no second reading.
  const matched = target.charCodeAt(0) === SLASH && !target.includes('%') ? target : routerTarget(target);
  const routed = matched === undefined ? undefined : withinMount(matched, mountPath);
  if (routed !== undefined && routed !== req.url) {
    req.originalUrl ??= req.url;
    req.url = routed;
  }
}

/**
 * The client's address as the framework resolved it: `req.ip` when it set one (Express's, which follows its `trust
 * proxy` setting), else the socket's peer.
 */
function frameworkClientAddress(req: GateIncomingMessage & { ip?: unknown }): string | undefined {
  return typeof req.ip === 'string' ? req.ip : req.socket?.remoteAddress;
}

/** Sends a JSON answer the gate decided on (a challenge, a payment error, a 400). */
function sendAnswer(res: ServerResponse, answer: { status: number; headers: Readonly<Record<string, string>>; body: unknown }): void {
  res.writeHead(answer.status, answer.headers).end(JSON.stringify(answer.body));
}

/**
 * For adapters built on this one (the Express middleware). What the gate will do with a request, read once by an
 * adapter in front of the router (the table form): `free` when
 * it passes the request untouched without reading anything else of it (a target the gate reads, not ambiguous, whose
 * path no route of the table prices, and not an `OPTIONS` request, which may be a CORS preflight of a gated path), so
 * the adapter hands it on at once, without a promise; otherwise the table's route, if any, for
 * {@link decideAndApply} (the gate then does not match it again).
 */
export function tableRouteOf(gate: Gate, method: string, target: string): { free: true } | { free: false; route: GatedRoute | undefined } {
  const reading = readRequestTarget(target);
  if (!reading.ok) return { free: false, route: undefined };
  const route = gate.match(method, reading.path);
  return route === undefined && method !== 'OPTIONS' ? FREE : { free: false, route };
}

const FREE: { free: true } = Object.freeze({ free: true });

/**
 * Applies the gate to one request. An unpaid, refused or ambiguous request is answered here (`answered: true`).
 * A free request is left untouched. A paid request gets its `payment-response` header, and `req.url` becomes the
 * path the gate matched plus the query (`/api/%77eather?x=1` → `/api/weather?x=1`), so the router reaches the
 * handler that was paid for (spec CR-4.9); the target as received stays in `req.originalUrl`. With `options.route`
 * the request is already routed: the gate prices that route and `req.url` is left as it is. When a paid answer
 * finishes, its status is reported to the gate (`settle`), which decides whether anything follows
 * (`refundOnHandlerError`). Rejects only on a programming error.
 */
export function applyCredit402(gate: Gate, req: GateIncomingMessage, res: ServerResponse, options: ApplyOptions = {}): Promise<AppliedGate> {
  const target = options.target ?? req.originalUrl ?? req.url ?? '/';
  return decideAndApply(gate, req, res, target, options.route, options.route === undefined ? (options.mountPath ?? '') : undefined, options.clientAddress);
}

/**
 * For adapters built on this one (the Express middleware). {@link applyCredit402} on a target already taken from the request: `route` is the route to price (the router's, or
 * the table's when the adapter matched it already; the gate matches its table when undefined), and `mountPath` the
 * prefix to strip when handing the router the path the gate read, undefined to leave `req.url` as it is (routed);
 * `clientAddress` the client's address (default: the framework's `req.ip`, else the socket's peer).
 */
export function decideAndApply(
  gate: Gate,
  req: GateIncomingMessage,
  res: ServerResponse,
  target: string,
  route: GatedRoute | undefined,
  mountPath: string | undefined,
  clientAddress?: string,
): Promise<AppliedGate> {
  let decided: ReturnType<Gate['handle']>;
  try {
    decided = gate.handle(gateRequest(req, target, route, clientAddress));
  } catch (error) {
    return Promise.reject(error);
  }
  return decided.then((decision) => {
    if (decision.action === 'respond') {
      sendAnswer(res, decision);
      return ANSWERED;
    }
    if (decision.action === 'pass') return PASSED;
    const { headers } = decision;
    for (const name in headers) res.setHeader(name, headers[name] as string);
    if (mountPath !== undefined) routeAsTheGateReads(req, target, mountPath);
    // `finish` is emitted once: `on` spares the wrapper `once` makes per paid request.
    res.on('finish', () => void decision.settle({ status: res.statusCode }));
    return { answered: false, payment: decision.payment };
  });
}

/**
 * What the gate is asked about `req`. Without a given `clientAddress`, the framework's is read only if the gate reads
 * it (a new card payment under `newPaymentRateLimit`): Express's `req.ip` parses X-Forwarded-For on every read.
 */
function gateRequest(req: GateIncomingMessage, target: string, route: GatedRoute | undefined, clientAddress: string | undefined): GateRequest {
  const method = req.method ?? '';
  const { headers } = req;
  if (clientAddress !== undefined) return { method, url: target, route, paymentHeader: headers.payment, clientAddress, origin: headers.origin };
  // The socket keeps its peer once read: read now, while the connection is open, so that a later read sees the same address.
  void req.socket?.remoteAddress;
  return {
    method,
    url: target,
    route,
    paymentHeader: headers.payment,
    get clientAddress() {
      return frameworkClientAddress(req);
    },
    origin: headers.origin,
  };
}

const ANSWERED: AppliedGate = Object.freeze({ answered: true });
const PASSED: AppliedGate = Object.freeze({ answered: false });

/**
 * Readies any request for a router that decides what is gated (per-route gating): an ambiguous target (spec CR-4.10)
 * is answered 400 here (`true`: answered), and every other request is handed to the router with `req.url` the
 * request path the gate reads and the query (CR-4.2: `/api/%77eather` is routed as `/api/weather`, an absolute-form
 * target as its path), so the router and the gate agree (CR-4.9). Nothing is read, charged or gated here.
 */
export function applyTargetReading(req: GateIncomingMessage, res: ServerResponse, options: Pick<ApplyOptions, 'target' | 'mountPath'> = {}): boolean {
  const target = options.target ?? req.originalUrl ?? req.url ?? '/';
  const reading = readRequestTarget(target);
  if (!reading.ok) {
    sendAnswer(res, ambiguousTarget(reading.reason));
    return true;
  }
  routeAsTheGateReads(req, target, options.mountPath ?? '');
  return false;
}
