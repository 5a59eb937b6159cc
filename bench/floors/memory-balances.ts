// The memory floor's store: a Map update, nothing else.
import type { FloorBalances } from './balances.ts';

/** Balances in a Map of this process. */
export function memoryBalances(): FloorBalances {
  const balances = new Map<string, number>();
  return {
    deduct(clientId, amount) {
      const balance = balances.get(clientId);
      if (balance === undefined || balance < amount) return null;
      balances.set(clientId, balance - amount);
      return balance - amount;
    },
    fund: async (clientId, balance) => void balances.set(clientId, balance),
    close: async () => {},
  };
}
