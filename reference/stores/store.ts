// The store contract every credit402 store implements; each method's atomicity is part of the contract.

/** A lowercase ISO 4217 code (`usd`, `eur`): balances are kept per client and currency (CR-6.8). */
export type Currency = string;

/** One client's record. Balances and amounts are integer units. */
export interface ClientRecord {
  /**
   * Current balance in units per currency; a currency the client never held is absent (a balance of 0).
   * Negative only after a reversal ({@link Store.reverseTopUp}) took back more than was left; a negative
   * balance serves nothing, since deductions need balance ≥ amount.
   */
  balances: Record<Currency, number>;
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
  /** The currency of the balance credited or deducted. */
  currency: Currency;
  /** Units credited (topup) or deducted (deduction); always positive or zero. */
  amount: number;
  /** ISO 8601 time of the transaction. */
  createdAt: string;
  /** The processor's PaymentIntent id; present on `topup`. */
  paymentIntentId?: string;
  /** The route key `<METHOD> <path>`; present on `deduction`. */
  resource?: string;
}

/**
 * A request id (CR-6.9) that makes a deduction idempotent: the store keeps the deduction under
 * (client, `id`) for `ttlMs`, and a repeat within that time is answered from it instead of deducting again.
 */
export interface DeductionRequest {
  /** The payload's `requestId`. */
  id: string;
  /** What the id was spent on (route key, currency and price); a repeat must carry the same text. */
  fingerprint: string;
  /** How long the kept deduction answers repeats; a positive safe integer. */
  ttlMs: number;
  /**
   * Claims the one repeat for this call only for a while (CR-6.9): a call answered `repeated` holds the repeat under
   * `claim.id` for `claim.leaseMs`, and the repeat is used once {@link Store.confirmRepeat} names that claim. A claim
   * never confirmed (its answer was lost, or came after the caller's deadline) lapses, and the next call with the id
   * may claim the repeat again; while a claim holds, another call is answered `busy`. Without `claim`, the first
   * repeat is used at once.
   */
  claim?: RepeatClaim;
}

/** One call's claim of a request id's one repeat: a random id per call, and how long the claim holds unconfirmed. */
export interface RepeatClaim {
  /** Names the claiming call (a random UUID per call). */
  id: string;
  /** How long the claim holds without {@link Store.confirmRepeat}, in ms; a positive safe integer. */
  leaseMs: number;
}

/** Input of {@link Store.confirmRepeat}: the claim that was answered, now used. */
export interface RepeatConfirmation {
  clientId: string;
  /** The kept request id whose repeat was claimed. */
  requestId: string;
  /** The {@link RepeatClaim.id} of the call answered `repeated`. */
  claimId: string;
}

/** Input of {@link Store.deductBalance}. */
export interface Deduction {
  clientId: string;
  currency: Currency;
  /** Units to deduct; a non-negative safe integer. */
  amount: number;
  /** The `deduction` record, appended in the same atomic step when the store keeps a log. */
  record?: TransactionRecord;
  /** Makes the deduction idempotent per (client, request id). */
  request?: DeductionRequest;
  /**
   * How long, in ms from the call, the caller waits for the answer (a positive safe integer; the gate's deadline
   * wrapper passes its `storeTimeoutMs`). A deduction that would be applied after that does nothing and rejects with
   * `LateDeductionError` (deduction-deadline.ts): a command held up by a stalled connection or server never takes money, or a request
   * id's one repeat, after its caller has answered 503 and gone.
   */
  timeoutMs?: number;
}

/**
 * Result of {@link Store.deductBalance}: `deducted` (the new balance), `insufficient` (unknown client or too
 * low a balance; nothing changed), `repeated` (the request id's deduction is kept: nothing deducted now, the
 * current balance; given once per kept deduction), `busy` (another call's claim of that repeat holds; nothing
 * changed, CR-6.9) or `conflict` (the request id was kept for another fingerprint, or its one repeat was already
 * used; nothing changed).
 */
export type DeductionResult =
  | { status: 'deducted'; balance: number }
  | { status: 'insufficient' }
  | { status: 'repeated'; balance: number }
  | { status: 'busy' }
  | { status: 'conflict' };

/** Input of {@link Store.refundDeduction}: a successful deduction given back whole. */
export interface DeductionRefund {
  clientId: string;
  /** The currency the deduction was taken from. */
  currency: Currency;
  /** Units given back: the deduction's amount, a positive safe integer. */
  amount: number;
  /** The id of the deduction's `deduction` record, when it was given one: removed from the log in the same step. */
  recordId?: string;
  /** The request id the deduction was kept under, when it had one: forgotten in the same step. */
  requestId?: string;
  /**
   * Names this refund (the gate makes one random UUID per refund and sends it with every attempt): the store applies
   * a refund at most once per (client, `refundId`) for {@link REFUND_ID_TTL_MS}; a repeat changes nothing.
   */
  refundId: string;
  /**
   * How long, in ms from the call, the caller waits for the answer (a positive safe integer), as for
   * {@link Deduction.timeoutMs}: a refund the store would apply after that changes nothing and rejects with
   * `LateDeductionError` (`ERR_STORE_LATE`), so that only attempts still awaited can apply and a retry is safe.
   */
  timeoutMs?: number;
}

/**
 * Result of {@link Store.refundDeduction}; both carry the balance in the refund's currency after the call.
 * - `refunded`: the deduction is given back (price, record, request id), by this call or by an earlier call with the
 *   same refund id.
 * - `superseded`: nothing changed, now or ever under this refund id: a call with the deduction's request id was answered
 *   `repeated` first (its repeat claimed, whether the claim holds, lapsed or was confirmed, or used without a claim), so
 *   the deduction paid for that repeat's answer and stands (CR-6.9). The refund id is not kept: a later call with it
 *   finds the repeat answered again and is superseded again.
 */
export type DeductionRefundResult =
  | { status: 'refunded'; balance: number }
  | { status: 'superseded'; balance: number };

/**
 * How long a store remembers an applied refund id (1 hour): far longer than the gate's retries of one refund (a few
 * seconds), and every attempt has a deadline, so no attempt of a refund can be applied once its id is forgotten.
 */
export const REFUND_ID_TTL_MS = 3_600_000;

/** Input of {@link Store.creditTopUp}. */
export interface TopUpCredit {
  clientId: string;
  /** The currency charged and credited. */
  currency: Currency;
  /** Units to credit; a positive safe integer. */
  amount: number;
  /** The PaymentIntent id the credit is keyed on. */
  paymentIntentId: string;
  /**
   * The store id the top-up was charged under (the {@link Store.getStoreId} that went into the charge's idempotency
   * key, or the one a PaymentIntent's metadata names): the credit applies only while the store's storage still holds
   * it, checked in the same atomic step (see {@link Store.creditTopUp}). Absent: no check (a PaymentIntent made before
   * PaymentIntents named their store).
   */
  storeId?: string;
}

/** Result of {@link Store.creditTopUp}. */
export interface TopUpCreditResult {
  /** True when this call applied the credit; false when the PaymentIntent had already been credited. */
  credited: boolean;
  /** Balance of `credit.currency` after the call. */
  balance: number;
}

/** Input of {@link Store.reverseTopUp}: money the processor gave back (refund) or lost (dispute). */
export interface TopUpReversal {
  /** The PaymentIntent whose top-up is reversed. */
  paymentIntentId: string;
  /**
   * Names one reversal of that PaymentIntent, e.g. `refund:<charge id>` or `dispute:<dispute id>`.
   * Its amount only ever rises: a call with an amount at or below the recorded one changes nothing.
   */
  key: string;
  /** Units reversed under `key` so far (refunded or disputed minor units × 100); a positive safe integer. */
  amount: number;
}

/** Result of {@link Store.reverseTopUp}. */
export interface TopUpReversalResult {
  /** True when this call raised the recorded amount of the reversal. */
  changed: boolean;
  /** Units this call took from the balance (0 when the PaymentIntent is not credited yet or the cap was reached). */
  taken: number;
  /** The credited client, or null when the PaymentIntent is not credited (yet). */
  clientId: string | null;
  /** The credited currency, or null when the PaymentIntent is not credited. */
  currency: Currency | null;
  /** That client's balance in that currency after the call, or null when the PaymentIntent is not credited. */
  balance: number | null;
}

/**
 * Persistence for balances. All amounts are integer units up to Number.MAX_SAFE_INTEGER.
 * Every method either completes fully or changes nothing; a failure rejects the promise.
 * Stores must not hold 32-bit columns or lose precision below 2^53.
 * Invalid arguments reject and change nothing: an empty or non-string id with a TypeError, an amount
 * outside its documented range with a RangeError. Callers pass validated data; this is a guard.
 * The gate calls every method with a deadline (its `storeTimeoutMs`, see `store-deadline.ts`): a call still pending
 * then counts as failed with an unknown outcome, so a store's own waits (locks, retries) should end before it.
 */
export interface Store {
  /**
   * Atomically subtracts `amount` (a non-negative safe integer) from the client's balance in `currency` when
   * the client exists and that balance is at least `amount` (a currency never held is 0): `deducted` with the
   * new balance; otherwise `insufficient`, and nothing changes and no record is created. Amount 0 succeeds for
   * an existing client whose balance in that currency is not negative. Concurrent calls never overdraw: N calls
   * of 1 against a balance worth K succeed exactly min(N, K) times. When `record` (a `deduction` of the same
   * client, currency and amount) is given and the store keeps a transaction log, it is appended in the same
   * atomic step, only when the deduction succeeds; a store without a log ignores it. With `request`, a
   * successful deduction is kept under (client, request id) for `request.ttlMs`; while kept, the first call
   * with that id and the same fingerprint resolves `repeated` (nothing deducted or appended), and any other
   * call with that id resolves `conflict`; with `request.claim`, that call only claims the repeat for its lease
   * (`busy` for other calls meanwhile) and the repeat is used when {@link confirmRepeat} confirms the claim. A kept id whose deduction failed is not kept. With `timeoutMs`, a
   * deduction the store would apply after its caller stopped waiting changes nothing and rejects with
   * `LateDeductionError` (`ERR_STORE_LATE`): the store's clock decides, with a margin for its uncertainty.
   */
  deductBalance(deduction: Deduction): Promise<DeductionResult>;

  /**
   * Gives a successful deduction back whole, in one atomic step (CR-15.3, `refundOnHandlerError`): adds `amount`
   * to the balance in `currency` (creating the record when missing, as {@link addBalance}), removes the deduction's
   * record `recordId` from the log when the store keeps one and still holds it, and forgets the kept request id
   * `requestId` of the client, so that the next call with that id is a new deduction (not `repeated`). The log
   * stays exact: it reads as if the deduction never happened. Resolves `refunded` with the new balance.
   * A refund and the request id's repeat exclude each other (CR-6.9): the refund applies only while the kept id's one
   * repeat was never claimed nor used. Once a call with `requestId` was answered `repeated` (a claim held, lapsed or
   * confirmed, or a repeat used without claims), the refund changes nothing (money, record, kept id; its refund id is
   * not kept) and resolves `superseded` with the current balance: the deduction paid for the repeat that may have been
   * served. The check and the refund are one atomic step with {@link deductBalance}'s claim of the repeat, so whichever
   * comes second sees the first: a repeat arriving after an applied refund finds the id forgotten and is deducted anew.
   * Applied at most once per (client, `refundId`): the id is kept in the same atomic step for {@link REFUND_ID_TTL_MS},
   * and a call with a kept id changes nothing and resolves `refunded` with the current balance in `currency`
   * (concurrent calls with one id apply once), so a caller whose call failed or timed out retries with the same id; the
   * refund id is looked at before the repeat. With `timeoutMs`, a refund the store would apply after its caller stopped
   * waiting changes nothing (its id is not kept) and rejects with `LateDeductionError` (`ERR_STORE_LATE`). Rejects with
   * a RangeError, changing nothing, when the balance would pass Number.MAX_SAFE_INTEGER.
   */
  refundDeduction(refund: DeductionRefund): Promise<DeductionRefundResult>;

  /**
   * Uses up the repeat of the client's kept request id `requestId` when `claimId` is its latest claim (a call with
   * that claim was answered `repeated`, and no other call claimed the repeat since, its lease lapsed or not): from then
   * on every call with that id resolves `conflict`. Otherwise (another call claimed it since, the id is not kept) it
   * changes nothing. Never rejects for a claim it cannot find. Optional: the gate claims repeats only
   * on a store that has it (every shipped store does); on another, a repeat is used when it is answered.
   */
  confirmRepeat?(confirmation: RepeatConfirmation): Promise<void>;

  /**
   * Atomically adds `amount` (a positive safe integer) to the balance in `currency`, creating the record with
   * no balances and no top-ups first when missing; resolves to the new balance in that currency. Rejects with a
   * RangeError, changing nothing, when the balance would pass Number.MAX_SAFE_INTEGER.
   */
  addBalance(clientId: string, currency: Currency, amount: number): Promise<number>;

  /** Creates the client record with no balances and no top-ups when missing; leaves an existing record untouched. */
  ensureClient(clientId: string): Promise<void>;

  /** Resolves to a copy of the client's record, or `null` when there is none. */
  getClient(clientId: string): Promise<ClientRecord | null>;

  /**
   * Resolves the store's id: random, made once when the store's storage is created, kept with it for its whole life
   * (a persistent store reads it back at every open; a store that keeps nothing makes one per instance), so two
   * stores never share one, even when one is restored from scratch. Part of every charge's idempotency key
   * (CR-7.16): two deployments on one processor account never replay each other's charges. Read from the storage at
   * every call, never from a cache: storage that lost its id while the store was open (a Redis flushed or restarted
   * without persistence, a table emptied) gets a fresh random id, pinned there by this call (or read back when another
   * store pinned one first), so that charges after a reset never send the keys of charges made before it (CR-14.13).
   */
  getStoreId(): Promise<string>;

  /**
   * Credits a paid top-up exactly once per `paymentIntentId`, in one atomic step: ensures the client
   * record, adds the amount to the balance in `currency`, increments `topUps`, marks the PaymentIntent as
   * credited (keeping its client, currency and amount) and, when the store keeps a transaction log, appends the `topup` record (with the full
   * amount). When reversals of this PaymentIntent were recorded before it was credited (a refund webhook
   * that overtook the credit), the balance gains the amount minus those reversals, capped at the amount. A second call with the same PaymentIntent id
   * changes nothing and resolves with `credited: false` and the current balance of `credit.clientId`
   * in `credit.currency` (0 when there is none); it does not compare the client or amount of the first credit.
   * Concurrent calls with one PaymentIntent id credit exactly once. Rejects with a RangeError, changing
   * nothing (the PaymentIntent stays uncredited), when the balance would pass Number.MAX_SAFE_INTEGER.
   * A store may forget a credited PaymentIntent after a retention period documented by the store, which
   * must be far longer than any window in which the same PaymentIntent can be presented again.
   * With `credit.storeId`, the store first checks, in the same atomic step, that its storage still holds that id; when
   * it holds another id or none (it was reset since the top-up was charged, or the PaymentIntent is another store's),
   * it changes nothing and rejects with a `StoreIdentityError` (`ERR_STORE_RESET`), whether or not the PaymentIntent
   * was credited. On a Redis Cluster the check is a read just before the credit (the id lives in another hash slot), so
   * a reset in between is not seen (docs/money-safety.md).
   */
  creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult>;

  /**
   * Optional transaction log: appends one record as given. Called only when present; a store that keeps
   * a log implements both this and {@link listTransactions}, and appends the `record` argument of
   * {@link deductBalance}. It neither creates clients nor touches balances. The gate does not call it:
   * it passes the `deduction` record to {@link deductBalance}. Record ids are unique; a store may reject
   * a duplicate.
   */
  recordTransaction?(record: TransactionRecord): Promise<void>;

  /**
   * Optional: the client's transaction records in the order they were appended (oldest first); `[]`
   * when there are none. A store may drop records older than its documented retention period, or the
   * oldest records beyond a documented count per client.
   */
  listTransactions?(clientId: string): Promise<TransactionRecord[]>;

  /**
   * Optional (robustness): true when {@link creditTopUp} credited this PaymentIntent and the store still
   * keeps its marker. Read-only; used by reconciliation dry runs.
   */
  hasCredit?(paymentIntentId: string): Promise<boolean>;

  /**
   * Optional (robustness): records that the processor took money of a top-up back, and takes it from the
   * credited client's balance in the credited currency, in one atomic step. The reversal `key` is kept at the highest `amount`
   * seen, so repeated and out-of-order calls are harmless. Let R be the sum over the PaymentIntent's keys
   * and U the credited amount: the client always has lost exactly min(U, R) to reversals of this
   * PaymentIntent, whatever the order of the calls and of the credit. Before the credit, the reversal is
   * only recorded (and {@link creditTopUp} credits U − min(U, R)). The balance may become negative.
   */
  reverseTopUp?(reversal: TopUpReversal): Promise<TopUpReversalResult>;

  /** Optional (robustness): true when {@link markEventProcessed} was called for this processor event id. */
  hasProcessedEvent?(eventId: string): Promise<boolean>;

  /**
   * Optional (robustness): remembers a processor event id as handled (webhook deduplication). A store may
   * forget it after a retention period it documents, far longer than the processor's retry window.
   */
  markEventProcessed?(eventId: string): Promise<void>;

  /**
   * Optional (robustness): a lease on `name`. Atomically takes it when nobody holds it or the holder's
   * lease has expired, and resolves its token: `token` when given, else a fresh opaque one; resolves `null`, changing
   * nothing, while another unexpired lease exists. The lease expires `ttlMs` (a positive safe integer) after it was
   * taken even if never released, so a crashed holder blocks others for at most `ttlMs`. Not reentrant:
   * the holder's own second call also gets `null`. Names are their own namespace (not client ids).
   * The caller's `token` (a non-empty string of at most 256 characters, `MAX_LOCK_TOKEN_LENGTH`, else a TypeError coded
   * `ERR_LOCK_TOKEN`, changing nothing; the gate sends a random UUID) lets it release a lease whose answer it never got
   * (a timeout, a connection lost after the command was sent): {@link releaseLock} with that token frees the lease when
   * this call took it, and changes nothing when it did not (CR-14.12). A caller gives a token no other caller uses.
   */
  acquireLock?(name: string, ttlMs: number, token?: string): Promise<string | null>;

  /**
   * Optional (robustness): releases the lease on `name` only when `token` is the current holder's
   * (compare and delete in one step). Resolves true when released; false when the lease had expired,
   * was taken by someone else since, or never existed, and then changes nothing.
   */
  releaseLock?(name: string, token: string): Promise<boolean>;

  /**
   * Optional: how long credited-PaymentIntent markers are kept, in milliseconds; absent when they are
   * kept forever. Reconciliation never looks further back than this.
   */
  readonly creditRetentionMs?: number;

  /** Releases connections and handles. Calling it again resolves; any other call afterwards rejects. */
  close(): Promise<void>;
}
