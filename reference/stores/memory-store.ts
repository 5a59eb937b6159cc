// In-process store: Maps in memory, atomic because no method awaits between its read and its write.
import { randomUUID } from 'node:crypto';
import type {
  ClientRecord, Currency, Deduction, DeductionRequest, DeductionResult, Store, TopUpCredit, TopUpCreditResult, TopUpReversal,
  TopUpReversalResult, TransactionRecord,
} from './store.ts';
import {
  addSaturating,
  assertCurrency,
  assertDeduction,
  assertLockRequest,
  assertNoOverflow,
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
  assertTopUpReversal,
  assertTransactionRecord,
  closedError,
  copyTransaction,
  reversalTake,
} from './validate.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
  /** Records kept per client, the oldest dropped first, so a long-running process stays bounded; default 10000. */
  maxTransactionsPerClient?: number;
}

/** A client as kept: balances per currency (a currency never held has no entry). */
interface Client { balances: Map<Currency, number>; topUps: number; createdAt: string }
/** A credited PaymentIntent: who got how much, in which currency. */
interface Credited { clientId: string; currency: Currency; amount: number }
/** A successful deduction kept under its request id until `expiresAt` (ms since the epoch). */
interface KeptRequest { fingerprint: string; repeated: boolean; expiresAt: number }

/** Kept request ids below which no sweep of expired ones runs. */
const MIN_REQUEST_SWEEP = 1024;

/**
 * A store held in this process's memory, for tests and single-process servers.
 * Nothing survives a restart and nothing is shared between processes. Kept request ids of idempotent
 * deductions expire after their `ttlMs`: an expired one is dropped when looked up, and all expired ones are
 * swept whenever the kept ids reach twice their number after the last sweep (at least 1024), so they never
 * pass twice the most ids live at once.
 */
export class MemoryStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

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
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#maxTransactions = options.maxTransactionsPerClient ?? 10_000;
    if (!Number.isSafeInteger(this.#maxTransactions) || this.#maxTransactions < 1) {
      throw new RangeError('maxTransactionsPerClient must be a positive safe integer');
    }
    if (options.recordTransactions ?? true) {
      this.recordTransaction = async (record) => {
        this.#assertOpen();
        assertTransactionRecord(record);
        this.#append(copyTransaction(record));
      };
      this.listTransactions = async (clientId) => {
        this.#assertOpen();
        assertNonEmptyString(clientId, 'clientId');
        return (this.#transactions.get(clientId) ?? []).map(copyTransaction);
      };
    }
  }

  /** Request ids kept now, expired ones not swept yet included (diagnostics: the count stays bounded). */
  get keptRequestIds(): number {
    return this.#requests.size;
  }

  async deductBalance(deduction: Deduction): Promise<DeductionResult> {
    this.#assertOpen();
    assertDeduction(deduction);
    const { clientId, currency, amount, record, request } = deduction;
    const now = Date.now();
    if (request !== undefined) {
      const kept = this.#keptRequest(clientId, request.id, now);
      if (kept !== undefined) {
        if (kept.fingerprint !== request.fingerprint || kept.repeated) return { status: 'conflict' };
        kept.repeated = true;
        return { status: 'repeated', balance: this.#balanceOf(clientId, currency) };
      }
    }
    const client = this.#clients.get(clientId);
    const balance = client?.balances.get(currency) ?? 0;
    if (client === undefined || balance < amount) return { status: 'insufficient' };
    // Amount 0 from a currency never held leaves it absent.
    if (amount > 0) client.balances.set(currency, balance - amount);
    if (record !== undefined && this.recordTransaction !== undefined) this.#append(copyTransaction(record));
    if (request !== undefined) this.#keepRequest(clientId, request, now);
    return { status: 'deducted', balance: balance - amount };
  }

  async addBalance(clientId: string, currency: Currency, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertCurrency(currency);
    assertSafeInteger(amount, 'amount', 1);
    assertNoOverflow(this.#balanceOf(clientId, currency), amount);
    return this.#add(this.#ensure(clientId), currency, amount);
  }

  async ensureClient(clientId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    this.#ensure(clientId);
  }

  async getClient(clientId: string): Promise<ClientRecord | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    const client = this.#clients.get(clientId);
    if (client === undefined) return null;
    return { balances: Object.fromEntries(client.balances), topUps: client.topUps, createdAt: client.createdAt };
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    const { clientId, currency, amount, paymentIntentId } = credit;
    if (this.#credited.has(paymentIntentId)) {
      return { credited: false, balance: this.#balanceOf(clientId, currency) };
    }
    const net = amount - Math.min(amount, this.#reversedSum(paymentIntentId));
    assertNoOverflow(this.#balanceOf(clientId, currency), net);
    this.#credited.set(paymentIntentId, { clientId, currency, amount });
    const client = this.#ensure(clientId);
    const balance = this.#add(client, currency, net);
    client.topUps += 1;
    if (this.recordTransaction !== undefined) {
      this.#append({ id: randomUUID(), type: 'topup', clientId, currency, amount, createdAt: new Date().toISOString(), paymentIntentId });
    }
    return { credited: true, balance };
  }

  async hasCredit(paymentIntentId: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(paymentIntentId, 'paymentIntentId');
    return this.#credited.has(paymentIntentId);
  }

  async reverseTopUp(reversal: TopUpReversal): Promise<TopUpReversalResult> {
    this.#assertOpen();
    assertTopUpReversal(reversal);
    const { paymentIntentId, key, amount } = reversal;
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
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    return this.#events.has(eventId);
  }

  async markEventProcessed(eventId: string): Promise<void> {
    this.#assertOpen();
    assertNonEmptyString(eventId, 'eventId');
    this.#events.add(eventId);
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | null> {
    this.#assertOpen();
    assertLockRequest(name, ttlMs);
    const now = Date.now();
    const held = this.#locks.get(name);
    if (held !== undefined && held.expiresAt > now) return null;
    const token = randomUUID();
    this.#locks.set(name, { token, expiresAt: now + ttlMs });
    return token;
  }

  async releaseLock(name: string, token: string): Promise<boolean> {
    this.#assertOpen();
    assertNonEmptyString(name, 'name');
    assertNonEmptyString(token, 'token');
    const held = this.#locks.get(name);
    if (held === undefined || held.token !== token || held.expiresAt <= Date.now()) return false;
    this.#locks.delete(name);
    return true;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

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

  #assertOpen(): void {
    if (this.#closed) throw closedError('MemoryStore');
  }
}

/** The map key of (client, request id): the client id's length first, so no two pairs share a key. */
function requestKey(clientId: string, requestId: string): string {
  return `${clientId.length}:${clientId}${requestId}`;
}
