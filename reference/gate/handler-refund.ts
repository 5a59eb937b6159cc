// The settlement of a served request: the refund of its whole deduction when its upstream or handler failed, at most once.
import type { GateContext, GatedRoute } from './context.ts';
import type { ServeDecision, ServeOutcome } from './decision.ts';
import { clientTag } from './events.ts';

type Settle = ServeDecision['settle'];

/** Whether the answer to a served request failed: the handler threw, or the answer's status is 5xx. */
function handlerFailed(outcome: ServeOutcome): boolean {
  return 'threw' in outcome || outcome.status >= 500;
}

/** Whether the outcome gives the price back: a gateway's upstream failure always (CR-15.3), a failed handler with `refundOnHandlerError`. */
function refundOwed(refundOnHandlerError: boolean, outcome: ServeOutcome): boolean {
  return 'upstreamFailed' in outcome || (refundOnHandlerError && handlerFailed(outcome));
}

/** What a settlement that gives nothing back answers: one resolved promise, shared. */
const SETTLED: Promise<void> = Promise.resolve();

/** The settlement of a pass that owes nothing back. */
const NOTHING_OWED: Settle = () => SETTLED;

/** The deduction a pass made: its record's id (when the store keeps a log) and the request id it was kept under. */
export interface MadeDeduction {
  recordId: string | undefined;
  requestId: string | undefined;
}

/**
 * The `settle` of a paid pass. With a deduction made by this request (`made`; undefined for a pass that deducted
 * nothing), its first call gives that deduction back whole when the outcome owes it (an upstream failure of a gateway
 * always, a failed handler with `refundOnHandlerError`): the route's price to `clientId`'s balance in the route's
 * currency, its record out of the log and its request id forgotten, in one store step, so that the same request id
 * is deducted again rather than served free as a repeat (CR-6.9, CR-15.3). Later calls do nothing. Never rejects: a
 * store failure is reported as `refundOnHandlerError`.
 */
export function settlement(ctx: GateContext, clientId: string, route: GatedRoute, made: MadeDeduction | undefined): Settle {
  if (made === undefined || route.amount === 0) return NOTHING_OWED;
  let settled = false;
  // Not async: the usual outcome owes nothing and answers the shared resolved promise.
  return (outcome) => {
    if (settled) return SETTLED;
    settled = true;
    if (!refundOwed(ctx.refundOnHandlerError, outcome)) return SETTLED;
    return refund(ctx, clientId, route, made);
  };
}

/** Gives the deduction back whole (price, record, request id); never rejects (a failure is reported as `refundOnHandlerError`). */
async function refund(ctx: GateContext, clientId: string, route: GatedRoute, made: MadeDeduction): Promise<void> {
  try {
    await ctx.store.refundDeduction({ clientId, currency: route.currency, amount: route.amount, recordId: made.recordId, requestId: made.requestId });
    ctx.emit({ type: 'refund', route: route.key, currency: route.currency, units: route.amount, client: clientTag(clientId) });
  } catch (error) {
    ctx.report(error, 'refundOnHandlerError');
  }
}
