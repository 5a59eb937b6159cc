// The memory store's data: Maps in this process, atomic because no method awaits between its read and its write.
import type {
  ClientRecord, Currency, Deduction, DeductionRefund, DeductionRefundResult, DeductionRequest, DeductionResult, RepeatConfirmation, TopUpCredit,
  TopUpCreditResult, TopUpReversal, TopUpReversalResult, TransactionRecord,
} from '../store.ts';
import { REFUND_ID_TTL_MS } from '../store.ts';
import type { MemoryStore } from './memory-store.ts';
import type { StoreBackend } from '../store-backend.ts';
import { addSaturating, assertNonEmptyString, assertNoOverflow, reversalTake } from '../validate.ts';
import { StoreIdentityError } from '../store-identity.ts';

/** A client as kept: balances per currency (a currency never held has no entry). */
interface Client { balances: Map<Currency, number>; topUps: number; createdAt: string }
/** A credited PaymentIntent: who got how much, in which currency. */
interface Credited { clientId: string; currency: Currency; amount: number }
/**
 * A successful deduction kept under its request id until `expiresAt` (ms since the epoch): `repeated` once its one
 * repeat is used; `claim` once a call claimed that repeat (the latest claim, holding until `claimUntil`; kept after it
 * lapsed, so that a refund sees the repeat was answered) (CR-6.9).
 */
interface KeptRequest { fingerprint: string; repeated: boolean; expiresAt: number; claim?: string; claimUntil?: number }

/** Kept request ids below which no sweep of expired ones runs. */
const MIN_REQUEST_SWEEP = 1024;

/** The backend of {@link MemoryStore}: see there for what it keeps and for how long. */
export class MemoryBackend implements StoreBackend {
  readonly #clients = new Map<string, Client>();
  readonly #credited = new Map<string, Credited>();
  /** PaymentIntent id → reversal key → units. */
  readonly #reversals = new Map<string, Map<string, number>>();
  readonly #events = new Set<string>();
  readonly #locks = new Map<string, { token: string; expiresAt: number }>();
  readonly #maxTransactions: number;
  readonly #transactions = new Map<string, TransactionRecord[]>();
  /** {@link requestKey} → the kept deduction. */
  readonly #requests = new Map<string, KeptRequest>();
  /** Kept request ids at which the next sweep of expired ones runs. */
  #sweepAt = MIN_REQUEST_SWEEP;
  /** {@link requestKey} of (client, refund id) → when the applied refund's id expires (ms since the epoch). */
  readonly #refunds = new Map<string, number>();
  /** Kept refund ids at which the next sweep of expired ones runs. */
  #refundSweepAt = MIN_REQUEST_SWEEP;
  /** Random per instance unless given (tests): nothing of this store outlives it. */
  readonly #storeId: string;

  /**
   * Keeps at most `maxTransactionsPerClient` records per client (a RangeError unless it is a positive safe integer);
   * `storeId` is the store's id (a TypeError unless a non-empty string).
   */
  constructor(maxTransactionsPerClient: number, storeId: string) {
    if (!Number.isSafeInteger(maxTransactionsPerClient) || maxTransactionsPerClient < 1) {
      throw new RangeError('maxTransactionsPerClient must be a positive safe integer');
    }
    assertNonEmptyString(storeId, 'storeId');
    this.#maxTransactions = maxTransactionsPerClient;
    this.#storeId = storeId;
  }

  /** Request ids kept now, expired ones not swept yet included. */
  get keptRequestIds(): number {
    return this.#requests.size;
  }

  /** Applied at the call, so always within its caller's deadline: `timeoutMs` needs no check here. */
  async deductBalance({ clientId, currency, amount, record, request }: Deduction): Promise<DeductionResult> {
    // The clock is read only for a request id (its expiry).
    const now = request === undefined ? 0 : Date.now();
    if (request !== undefined) {
      const kept = this.#keptRequest(clientId, request.id, now);
      if (kept !== undefined) {
        if (kept.fingerprint !== request.fingerprint || kept.repeated) return { status: 'conflict' };
        if (request.claim === undefined) kept.repeated = true;
        else if (kept.claimUntil !== undefined && kept.claimUntil > now) return { status: 'busy' };
        else Object.assign(kept, { claim: request.claim.id, claimUntil: now + request.claim.leaseMs });
        return { status: 'repeated', balance: this.#balanceOf(clientId, currency) };
      }
    }
    const client = this.#clients.get(clientId);
    const balance = client?.balances.get(currency) ?? 0;
    if (client === undefined || balance < amount) return { status: 'insufficient' };
    // Amount 0 from a currency never held leaves it absent.
    if (amount > 0) client.balances.set(currency, balance - amount);
    if (record !== undefined) this.#append(record);
    if (request !== undefined) this.#keepRequest(clientId, request, now);
    return { status: 'deducted', balance: balance - amount };
  }

  async confirmRepeat({ clientId, requestId, claimId }: RepeatConfirmation): Promise<void> {
    const kept = this.#keptRequest(clientId, requestId, Date.now());
    if (kept !== undefined && kept.claim === claimId) kept.repeated = true;
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    assertNoOverflow(this.#balanceOf(clientId, currency), amount);
    return this.#add(this.#ensure(clientId), currency, amount);
  }

  /**
   * Applied at the call, so always within its caller's deadline; once per (client, refund id) while the id is kept, and
   * only while the kept request id's repeat was never claimed nor used (else `superseded`, nothing changed).
   */
  async refundDeduction({ clientId, currency, amount, recordId, requestId, refundId }: DeductionRefund): Promise<DeductionRefundResult> {
    const now = Date.now();
    const key = requestKey(clientId, refundId);
    const kept = this.#refunds.get(key);
    if (kept !== undefined && kept > now) return { status: 'refunded', balance: this.#balanceOf(clientId, currency) };
    const request = requestId === undefined ? undefined : this.#keptRequest(clientId, requestId, now);
    if (request !== undefined && (request.repeated || request.claim !== undefined)) {
      return { status: 'superseded', balance: this.#balanceOf(clientId, currency) };
    }
    assertNoOverflow(this.#balanceOf(clientId, currency), amount);
    if (requestId !== undefined) this.#requests.delete(requestKey(clientId, requestId));
    if (recordId !== undefined) this.#removeRecord(clientId, recordId);
    this.#keepRefund(key, now);
    return { status: 'refunded', balance: this.#add(this.#ensure(clientId), currency, amount) };
  }

  async getStoreId(): Promise<string> {
    return this.#storeId;
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#ensure(clientId);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    const client = this.#clients.get(clientId);
    if (client === undefined) return null;
    return { balances: Object.fromEntries(client.balances), topUps: client.topUps, createdAt: client.createdAt };
  }

  /** This storage cannot be reset under the store: only a credit naming another store's id is refused. */
  async creditTopUp({ clientId, currency, amount, paymentIntentId, storeId }: TopUpCredit, recordId: string | undefined): Promise<TopUpCreditResult> {
    if (storeId !== undefined && storeId !== this.#storeId) throw new StoreIdentityError('MemoryStore', storeId);
    if (this.#credited.has(paymentIntentId)) {
      return { credited: false, balance: this.#balanceOf(clientId, currency) };
    }
    const net = amount - Math.min(amount, this.#reversedSum(paymentIntentId));
    assertNoOverflow(this.#balanceOf(clientId, currency), net);
    this.#credited.set(paymentIntentId, { clientId, currency, amount });
    const client = this.#ensure(clientId);
    const balance = this.#add(client, currency, net);
    client.topUps += 1;
    if (recordId !== undefined) {
      this.#append({ id: recordId, type: 'topup', clientId, currency, amount, createdAt: new Date().toISOString(), paymentIntentId });
    }
    return { credited: true, balance };
  }

  async recordTransaction(record: TransactionRecord): Promise<void> {
    this.#append(record);
  }

  async listTransactions(clientId: string): Promise<readonly TransactionRecord[]> {
    return this.#transactions.get(clientId) ?? [];
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    return this.#credited.has(paymentIntentId);
  }

  async reverseTopUp({ paymentIntentId, key, amount }: TopUpReversal): Promise<TopUpReversalResult> {
    const credited = this.#credited.get(paymentIntentId);
    const client = credited === undefined ? undefined : this.#clients.get(credited.clientId);
    const keys = this.#reversals.get(paymentIntentId) ?? new Map<string, number>();
    const previous = keys.get(key) ?? 0;
    const current = (): TopUpReversalResult => ({
      changed: false,
      taken: 0,
      clientId: credited?.clientId ?? null,
      currency: credited?.currency ?? null,
      balance: credited === undefined ? null : this.#balanceOf(credited.clientId, credited.currency),
    });
    if (amount <= previous) return current();
    const before = this.#reversedSum(paymentIntentId);
    const after = addSaturating(before, amount - previous);
    keys.set(key, amount);
    this.#reversals.set(paymentIntentId, keys);
    if (credited === undefined || client === undefined) return { ...current(), changed: true };
    const taken = reversalTake(credited.amount, before, after);
    if (taken > 0) client.balances.set(credited.currency, (client.balances.get(credited.currency) ?? 0) - taken);
    return { ...current(), changed: true, taken };
  }

  async hasProcessedEvent(eventId: string): Promise<boolean> {
    return this.#events.has(eventId);
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#events.add(eventId);
  }

  async acquireLock(name: string, ttlMs: number, token: string): Promise<string | null> {
    const now = Date.now();
    const held = this.#locks.get(name);
    if (held !== undefined && held.expiresAt > now) return null;
    this.#locks.set(name, { token, expiresAt: now + ttlMs });
    return token;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    const held = this.#locks.get(name);
    if (held === undefined || held.token !== token || held.expiresAt <= Date.now()) return false;
    this.#locks.delete(name);
    return true;
  }

  async close(): Promise<void> {}

  #reversedSum(paymentIntentId: string): number {
    let sum = 0;
    for (const amount of this.#reversals.get(paymentIntentId)?.values() ?? []) sum = addSaturating(sum, amount);
    return sum;
  }

  #ensure(clientId: string): Client {
    let client = this.#clients.get(clientId);
    if (client === undefined) {
      client = { balances: new Map(), topUps: 0, createdAt: new Date().toISOString() };
      this.#clients.set(clientId, client);
    }
    return client;
  }

  /** The balance of `clientId` in `currency`; 0 for an unknown client or a currency never held. */
  #balanceOf(clientId: string, currency: Currency): number {
    return this.#clients.get(clientId)?.balances.get(currency) ?? 0;
  }

  /** Adds `amount` (overflow already checked) to the client's balance in `currency`; returns the new balance. */
  #add(client: Client, currency: Currency, amount: number): number {
    const balance = (client.balances.get(currency) ?? 0) + amount;
    client.balances.set(currency, balance);
    return balance;
  }

  /** The unexpired deduction kept under (client, request id); an expired one is dropped. */
  #keptRequest(clientId: string, requestId: string, now: number): KeptRequest | undefined {
    const key = requestKey(clientId, requestId);
    const kept = this.#requests.get(key);
    if (kept === undefined || kept.expiresAt > now) return kept;
    this.#requests.delete(key);
    return undefined;
  }

  /** Keeps a successful deduction under (client, request id), sweeping expired ones once their number has doubled. */
  #keepRequest(clientId: string, request: DeductionRequest, now: number): void {
    if (this.#requests.size >= this.#sweepAt) {
      for (const [key, kept] of this.#requests) if (kept.expiresAt <= now) this.#requests.delete(key);
      this.#sweepAt = Math.max(MIN_REQUEST_SWEEP, 2 * this.#requests.size);
    }
    this.#requests.set(requestKey(clientId, request.id), { fingerprint: request.fingerprint, repeated: false, expiresAt: now + request.ttlMs });
  }

  /** Keeps an applied refund's id for {@link REFUND_ID_TTL_MS}, sweeping expired ones once their number has doubled. */
  #keepRefund(key: string, now: number): void {
    if (this.#refunds.size >= this.#refundSweepAt) {
      for (const [kept, expiresAt] of this.#refunds) if (expiresAt <= now) this.#refunds.delete(kept);
      this.#refundSweepAt = Math.max(MIN_REQUEST_SWEEP, 2 * this.#refunds.size);
    }
    this.#refunds.set(key, now + REFUND_ID_TTL_MS);
  }

  /** Removes the client's record `recordId`, searched from the newest: a refunded deduction is a recent one. */
  #removeRecord(clientId: string, recordId: string): void {
    const log = this.#transactions.get(clientId);
    if (log === undefined) return;
    for (let i = log.length - 1; i >= 0; i--) {
      if (log[i]?.id === recordId) {
        log.splice(i, 1);
        return;
      }
    }
  }

  #append(record: TransactionRecord): void {
    const log = this.#transactions.get(record.clientId);
    if (log === undefined) {
      this.#transactions.set(record.clientId, [record]);
      return;
    }
    log.push(record);
    // Trim in batches (a tenth of the limit at a time) so appending stays cheap.
    if (log.length > this.#maxTransactions + Math.ceil(this.#maxTransactions / 10)) log.splice(0, log.length - this.#maxTransactions);
  }
}

/** The map key of (client, request or refund id): the client id's length first, so no two pairs share a key. */
function requestKey(clientId: string, requestId: string): string {
  return `${clientId.length}:${clientId}${requestId}`;
}
