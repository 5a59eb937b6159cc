// The optional refund of a served request whose handler failed (`refundOnHandlerError`), applied at most once.
import type { GateContext } from './context.ts';

/** A callback that adds `amount` back to `clientId`'s balance on its first call only; never rejects. */
export function refundOnce(ctx: GateContext, clientId: string, amount: number): () => Promise<void> {
  let called = false;
  return async () => {
    if (called || amount === 0) return;
    called = true;
    try {
      await ctx.store.addBalance(clientId, amount);
    } catch (error) {
      ctx.report(error, 'refundOnHandlerError');
    }
  };
}
