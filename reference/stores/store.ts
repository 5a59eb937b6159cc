// The store contract every credit402 store implements; each method's atomicity is part of the contract.

/** One client's record. Balance and amounts are integer units. */
export interface ClientRecord {
  /** Current balance in units; never negative through this contract. */
  balance: number;
  /** Number of distinct top-ups credited to this client (drives charge idempotency keys). */
  topUps: number;
  /** ISO 8601 time the record was created. */
  createdAt: string;
}

/** A transaction log entry. */
export interface TransactionRecord {
  /** UUID (v4), unique per record. */
  id: string;
  type: 'topup' | 'deduction';
  clientId: string;
  /** Units credited (topup) or deducted (deduction); always positive or zero. */
  amount: number;
  /** ISO 8601 time of the transaction. */
  createdAt: string;
  /** The processor's PaymentIntent id; present on `topup`. */
  paymentIntentId?: string;
  /** The route key `<METHOD> <path>`; present on `deduction`. */
  resource?: string;
}

/** Input of {@link Store.creditTopUp}. */
export interface TopUpCredit {
  clientId: string;
  /** Units to credit; a positive safe integer. */
  amount: number;
  /** The PaymentIntent id the credit is keyed on. */
  paymentIntentId: string;
}

/** Result of {@link Store.creditTopUp}. */
export interface TopUpCreditResult {
  /** True when this call applied the credit; false when the PaymentIntent had already been credited. */
  credited: boolean;
  /** Balance after the call. */
  balance: number;
}

/**
 * Persistence for balances. All amounts are integer units up to Number.MAX_SAFE_INTEGER.
 * Every method either completes fully or changes nothing; a failure rejects the promise.
 * Stores must not hold 32-bit columns or lose precision below 2^53.
 */
export interface Store {
  /**
   * Atomically subtracts `amount` when the client exists and its balance is at least `amount`.
   * Resolves to the new balance, or `null` when the client is unknown or the balance is insufficient
   * (nothing changes then). Concurrent calls never overdraw: N calls against a balance worth K
   * succeed exactly min(N, K) times.
   */
  deductBalance(clientId: string, amount: number): Promise<number | null>;

  /** Atomically adds `amount` (creating the record with balance 0 first when missing); resolves to the new balance. */
  addBalance(clientId: string, amount: number): Promise<number>;

  /** Creates the client record with balance 0 and no top-ups when missing; leaves an existing record untouched. */
  ensureClient(clientId: string): Promise<void>;

  /** Resolves to the client's record, or `null` when there is none. */
  getClient(clientId: string): Promise<ClientRecord | null>;

  /**
   * Credits a paid top-up exactly once per `paymentIntentId`, in one atomic step: ensures the client
   * record, adds the amount, increments `topUps`, marks the PaymentIntent as credited and, when the store
   * keeps a transaction log, appends the `topup` record. A second call with the same PaymentIntent id
   * changes nothing and resolves with `credited: false` and the current balance.
   */
  creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult>;

  /** Optional transaction log: appends one record. Called only when present. */
  recordTransaction?(record: TransactionRecord): Promise<void>;

  /** Optional: the client's transaction records, oldest first. */
  listTransactions?(clientId: string): Promise<TransactionRecord[]>;

  /** Releases connections and handles. Further calls are not allowed. */
  close(): Promise<void>;
}
