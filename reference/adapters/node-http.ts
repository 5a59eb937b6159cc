// The gate applied to a plain node:http request: answers it, or readies it for the application's router (the Express adapter builds on it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ambiguousTarget, type Gate, type GatedRoute, readRequestTarget, routerTarget } from '../gate/index.ts';
import type { PaymentResponse } from '../protocol/types.ts';

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

/** Sends a JSON answer the gate decided on (a challenge, a payment error, a 400). */
function sendAnswer(res: ServerResponse, answer: { status: number; headers: Readonly<Record<string, string>>; body: unknown }): void {
  res.writeHead(answer.status, answer.headers).end(JSON.stringify(answer.body));
}

/**
 * Applies the gate to one request. An unpaid, refused or ambiguous request is answered here (`answered: true`).
 * A free request is left untouched. A paid request gets its `payment-response` header, and `req.url` becomes the
 * path the gate matched plus the query (`/api/%77eather?x=1` → `/api/weather?x=1`), so the router reaches the
 * handler that was paid for (spec CR-4.9); the target as received stays in `req.originalUrl`. With `options.route`
 * the request is already routed: the gate prices that route and `req.url` is left as it is. When a paid answer
 * finishes, its status is reported to the gate (`settle`), which decides whether anything follows
 * (`refundOnHandlerError`). Rejects only on a programming error.
 */
export async function applyCredit402(gate: Gate, req: GateIncomingMessage, res: ServerResponse, options: ApplyOptions = {}): Promise<AppliedGate> {
  const target = options.target ?? req.originalUrl ?? req.url ?? '/';
  const decision = await gate.handle({ method: req.method ?? '', url: target, route: options.route, paymentHeader: req.headers.payment, clientAddress: req.socket?.remoteAddress, origin: req.headers.origin });
  if (decision.action === 'respond') {
    sendAnswer(res, decision);
    return { answered: true };
  }
  if (decision.action === 'pass') return { answered: false };
  const { headers } = decision;
  for (const name in headers) res.setHeader(name, headers[name] as string);
  if (options.route === undefined) routeAsTheGateReads(req, target, options.mountPath ?? '');
  res.once('finish', () => void decision.settle({ status: res.statusCode }));
  return { answered: false, payment: decision.payment };
}

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
