// What every floor store offers: one deduction (one store operation), funding before the load, closing.

/** A floor's balances: one store operation per paid request. */
export interface FloorBalances {
  /** Takes `amount` from `clientId` when it has that much; the new balance, or null when it has not. */
  deduct(clientId: string, amount: number): number | null | Promise<number | null>;
  /** Sets `clientId`'s balance (before the load; not timed). */
  fund(clientId: string, balance: number): Promise<void>;
  close(): Promise<void>;
}
