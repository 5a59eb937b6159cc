// The optional refund of a served request whose handler failed (`refundOnHandlerError`), applied at most once.
import type { GateContext, GatedRoute } from './context.ts';

/** A callback that adds the route's price back to `clientId`'s balance in its currency on its first call only; never rejects. */
export function refundOnce(ctx: GateContext, clientId: string, route: GatedRoute): () => Promise<void> {
  let called = false;
  return async () => {
    if (called || route.amount === 0) return;
    called = true;
    try {
      await ctx.store.addBalance(clientId, route.currency, route.amount);
    } catch (error) {
      ctx.report(error, 'refundOnHandlerError');
    }
  };
}
