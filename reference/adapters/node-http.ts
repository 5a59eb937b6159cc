// The gate applied to a plain node:http request: answers it, or readies it for the application's router (the Express adapter builds on it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gate } from '../gate/gate.ts';
import { routerTarget } from '../gate/request-target.ts';
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
}

/** `target` without the mount prefix the framework stripped from `req.url`, as the framework would strip it. */
function withinMount(target: string, mountPath: string): string | undefined {
  if (mountPath === '') return target;
  if (!target.startsWith(mountPath)) return undefined;
  const rest = target.slice(mountPath.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Applies the gate to one request. An unpaid, refused or ambiguous request is answered here (`answered: true`).
 * A free request is left untouched. A paid request gets its `payment-response` header, and `req.url` becomes the
 * path the gate matched plus the query (`/api/%77eather?x=1` → `/api/weather?x=1`), so the router reaches the
 * handler that was paid for (spec CR-4.9); the target as received stays in `req.originalUrl`. When its answer
 * finishes, its status is reported to the gate (`settle`), which decides whether anything follows (`refundOnHandlerError`).
 * Rejects only on a programming error.
 */
export async function applyCredit402(gate: Gate, req: GateIncomingMessage, res: ServerResponse, options: ApplyOptions = {}): Promise<AppliedGate> {
  const target = options.target ?? req.originalUrl ?? req.url ?? '/';
  const decision = await gate.handle({ method: req.method ?? '', url: target, paymentHeader: req.headers.payment, clientAddress: req.socket?.remoteAddress, origin: req.headers.origin });
  if (decision.action === 'respond') {
    res.writeHead(decision.status, decision.headers).end(JSON.stringify(decision.body));
    return { answered: true };
  }
  if (decision.action === 'pass') return { answered: false };
  for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
  const matched = routerTarget(target);
  const routed = matched === undefined ? undefined : withinMount(matched, options.mountPath ?? '');
  if (routed !== undefined && routed !== req.url) {
    req.originalUrl ??= req.url;
    req.url = routed;
  }
  res.once('finish', () => void decision.settle({ status: res.statusCode }));
  return { answered: false, payment: decision.payment };
}
