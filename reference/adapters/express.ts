// Express-style `(req, res, next)` middleware (Express 4/5, connect, plain node:http): reads the request, applies the decision.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gate } from '../gate/gate.ts';
import type { PaymentResponse } from '../protocol/types.ts';

type Next = (error?: unknown) => void;
type Request = IncomingMessage & { originalUrl?: string };
type Response = ServerResponse & { locals?: Record<string, unknown> };

/**
 * Wraps a gate as connect-style middleware; a paid request's PaymentResponse is put on `res.locals.credit402`.
 * With `refundOnHandlerError`, a paid request that finishes with a 5xx status (an error passed to Express
 * becomes a 500) gets its price back.
 */
export function credit402Middleware(gate: Gate): (req: Request, res: Response, next: Next) => Promise<void> {
  return async function credit402(req, res, next) {
    try {
      const decision = await gate.handle({
        method: req.method ?? '',
        url: req.originalUrl ?? req.url ?? '/',
        paymentHeader: req.headers.payment,
      });
      if (decision.action === 'respond') {
        res.writeHead(decision.status, decision.headers).end(JSON.stringify(decision.body));
        return;
      }
      if (decision.action === 'serve') {
        for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
        if (res.locals) res.locals.credit402 = decision.payment satisfies PaymentResponse;
        const { refund } = decision;
        if (refund) {
          res.once('finish', () => {
            if (res.statusCode >= 500) void refund();
          });
        }
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
