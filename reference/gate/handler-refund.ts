// The settlement of a served request: the optional refund when its handler failed (`refundOnHandlerError`), at most once.
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

/**
 * The `settle` of a paid pass. With a deduction made by this request (`deducted`), its first call gives the route's
 * price back to `clientId`'s balance in the route's currency when the outcome owes it (an upstream failure of a
 * gateway always, a failed handler with `refundOnHandlerError`); later calls do nothing. Never rejects: a store
 * failure is reported as `refundOnHandlerError`.
 */
export function settlement(ctx: GateContext, clientId: string, route: GatedRoute, deducted: boolean): Settle {
  if (!deducted || route.amount === 0) return NOTHING_OWED;
  let settled = false;
  // Not async: the usual outcome owes nothing and answers the shared resolved promise.
  return (outcome) => {
    if (settled) return SETTLED;
    settled = true;
    if (!refundOwed(ctx.refundOnHandlerError, outcome)) return SETTLED;
    return refund(ctx, clientId, route);
  };
}

/** Gives the route's price back to the client's balance; never rejects (a failure is reported as `refundOnHandlerError`). */
async function refund(ctx: GateContext, clientId: string, route: GatedRoute): Promise<void> {
  try {
    await ctx.store.addBalance(clientId, route.currency, route.amount);
    ctx.emit({ type: 'refund', route: route.key, currency: route.currency, units: route.amount, client: clientTag(clientId) });
  } catch (error) {
    ctx.report(error, 'refundOnHandlerError');
  }
}
