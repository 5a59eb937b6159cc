// Mutant gateway target: its store never gives a deduction back, so an upstream that failed keeps the price and the request id (breaks CR-15.3).
import type { DeductionRefund, DeductionRefundResult, Store } from 'credit402/stores';
import { serveGatewayMutant } from './serve-gateway-mutant.ts';

/** `store` with a refundDeduction that changes nothing and resolves `refunded` with the current balance, as if it had been applied. */
function withoutRefunds(store: Store): Store {
  const refundDeduction = async (refund: DeductionRefund): Promise<DeductionRefundResult> => ({
    status: 'refunded',
    balance: (await store.getClient(refund.clientId))?.balances[refund.currency] ?? 0,
  });
  return new Proxy(store, {
    get(target, property) {
      if (property === 'refundDeduction') return refundDeduction;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

await serveGatewayMutant('gateway-no-refund', { wrapStore: withoutRefunds });
