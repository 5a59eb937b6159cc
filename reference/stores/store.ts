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
 * Invalid arguments reject and change nothing: an empty or non-string id with a TypeError, an amount
 * outside its documented range with a RangeError. Callers pass validated data; this is a guard.
 */
export interface Store {
  /**
   * Atomically subtracts `amount` (a non-negative safe integer) when the client exists and its balance
   * is at least `amount`. Resolves to the new balance, or `null` when the client is unknown or the
   * balance is insufficient (nothing changes then, and no record is created). Amount 0 resolves to the
   * current balance of an existing client. Concurrent calls never overdraw: N calls of 1 against a
   * balance worth K succeed exactly min(N, K) times.
   */
  deductBalance(clientId: string, amount: number): Promise<number | null>;

  /**
   * Atomically adds `amount` (a positive safe integer), creating the record with balance 0 and no
   * top-ups first when missing; resolves to the new balance. Rejects with a RangeError, changing
   * nothing, when the balance would pass Number.MAX_SAFE_INTEGER.
   */
  addBalance(clientId: string, amount: number): Promise<number>;

  /** Creates the client record with balance 0 and no top-ups when missing; leaves an existing record untouched. */
  ensureClient(clientId: string): Promise<void>;

  /** Resolves to a copy of the client's record, or `null` when there is none. */
  getClient(clientId: string): Promise<ClientRecord | null>;

  /**
   * Credits a paid top-up exactly once per `paymentIntentId`, in one atomic step: ensures the client
   * record, adds the amount, increments `topUps`, marks the PaymentIntent as credited and, when the store
   * keeps a transaction log, appends the `topup` record. A second call with the same PaymentIntent id
   * changes nothing and resolves with `credited: false` and the current balance of `credit.clientId`
   * (0 when that client has no record); it does not compare the client or amount of the first credit.
   * Concurrent calls with one PaymentIntent id credit exactly once. Rejects with a RangeError, changing
   * nothing (the PaymentIntent stays uncredited), when the balance would pass Number.MAX_SAFE_INTEGER.
   * A store may forget a credited PaymentIntent after a retention period documented by the store, which
   * must be far longer than any window in which the same PaymentIntent can be presented again.
   */
  creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult>;

  /**
   * Optional transaction log: appends one record as given. Called only when present; a store that keeps
   * a log implements both this and {@link listTransactions}. It neither creates clients nor touches
   * balances, and it is not atomic with {@link deductBalance}: the caller appends the `deduction` record
   * after a successful deduction, best effort. Record ids are unique; a store may reject a duplicate.
   */
  recordTransaction?(record: TransactionRecord): Promise<void>;

  /**
   * Optional: the client's transaction records in the order they were appended (oldest first); `[]`
   * when there are none. A store may drop records older than its documented retention period.
   */
  listTransactions?(clientId: string): Promise<TransactionRecord[]>;

  /** Releases connections and handles. Calling it again resolves; any other call afterwards rejects. */
  close(): Promise<void>;
}
