// Express-style `(req, res, next)` middleware (Express 4/5, connect, plain node:http): the node:http adapter, then `next()`; the per-route form is re-exported from express-route.ts.
import type { ServerResponse } from 'node:http';
import type { Gate } from '../../gate/index.ts';
import type { PaymentResponse } from '../../protocol/types.ts';
import { decideAndApply, tableRouteOf, type GateIncomingMessage } from '../node-http/node-http.ts';

export { credit402Express, type Credit402Express, type Credit402Handler } from './express-route.ts';

declare global {
  // Express's own interface for `res.locals` (merged into @types/express's; a plain declaration without it).
  namespace Express {
    interface Locals {
      /** The PaymentResponse of a request paid through credit402 (`credit402Middleware` or `credit402.route(…)`), set before the handler runs. */
      credit402?: PaymentResponse;
    }
  }
}

type Next = (error?: unknown) => void;
type Request = GateIncomingMessage & { baseUrl?: string };
type Response = ServerResponse & { locals?: Record<string, unknown> };

/**
 * Wraps a gate as connect-style middleware; mount it before the routes (`app.use(credit402Middleware(gate))`). A
 * paid request's PaymentResponse is put on `res.locals.credit402`, and the router is handed the path the gate
 * matched (`/api/%77eather` is routed as `/api/weather`; spec CR-4.9). The final status of a paid request's answer
 * (an error passed to Express becomes a 500) is reported to the gate, which decides on any refund (`refundOnHandlerError`).
 * Mount what may refuse a request before its handler (body parsers such as `express.json()`, authentication) before
 * this middleware: a request refused there is then never charged (spec CR-4.7), while one refused after the payment
 * keeps its price.
 */
export function credit402Middleware(gate: Gate): (req: Request, res: Response, next: Next) => void | Promise<void> {
  // A free request (no route of the table, not a preflight) is handed on at once: no promise, no await. The target is
  // read and matched once: a gated request's route goes to the gate as it is.
  return function credit402(req, res, next) {
    try {
      const target = req.originalUrl ?? req.url ?? '/';
      const table = tableRouteOf(gate, req.method ?? '', target);
      if (table.free) return next();
      return decideAndApply(gate, req, res, target, table.route, req.baseUrl ?? '').then((applied) => {
        if (applied.answered) return;
        if (applied.payment && res.locals) res.locals.credit402 = applied.payment;
        nextOrFail(next);
      }, next);
    } catch (error) {
      next(error);
    }
  };
}

/** Calls `next()`; an error it throws goes to `next(error)`, as a throwing handler's would. */
function nextOrFail(next: Next): void {
  try {
    next();
  } catch (error) {
    next(error);
  }
}
