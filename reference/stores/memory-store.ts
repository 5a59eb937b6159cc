// In-process store: Maps in memory, atomic because no method awaits between its read and its write.
import { randomUUID } from 'node:crypto';
import type {
  ClientRecord, Store, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult, TransactionRecord,
} from './store.ts';
import {
  addSaturating,
  assertDeductionRecord,
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

interface Credited { clientId: string; amount: number }

/**
 * A store held in this process's memory, for tests and single-process servers.
 * Nothing survives a restart and nothing is shared between processes.
 */
export class MemoryStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  readonly #clients = new Map<string, ClientRecord>();
  readonly #credited = new Map<string, Credited>();
  /** PaymentIntent id → reversal key → units. */
  readonly #reversals = new Map<string, Map<string, number>>();
  readonly #events = new Set<string>();
  readonly #locks = new Map<string, { token: string; expiresAt: number }>();
  readonly #maxTransactions: number;
  readonly #transactions = new Map<string, TransactionRecord[]>();
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

  async deductBalance(clientId: string, amount: number, record?: TransactionRecord): Promise<number | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 0);
    if (record !== undefined) assertDeductionRecord(record, clientId, amount);
    const client = this.#clients.get(clientId);
    if (client === undefined || client.balance < amount) return null;
    client.balance -= amount;
    if (record !== undefined && this.recordTransaction !== undefined) this.#append(copyTransaction(record));
    return client.balance;
  }

  async addBalance(clientId: string, amount: number): Promise<number> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 1);
    assertNoOverflow(this.#clients.get(clientId)?.balance ?? 0, amount);
    const client = this.#ensure(clientId);
    client.balance += amount;
    return client.balance;
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
    return client === undefined ? null : { ...client };
  }

  async creditTopUp(credit: TopUpCredit): Promise<TopUpCreditResult> {
    this.#assertOpen();
    assertTopUpCredit(credit);
    const { clientId, amount, paymentIntentId } = credit;
    if (this.#credited.has(paymentIntentId)) {
      return { credited: false, balance: this.#clients.get(clientId)?.balance ?? 0 };
    }
    const net = amount - Math.min(amount, this.#reversedSum(paymentIntentId));
    assertNoOverflow(this.#clients.get(clientId)?.balance ?? 0, net);
    this.#credited.set(paymentIntentId, { clientId, amount });
    const client = this.#ensure(clientId);
    client.balance += net;
    client.topUps += 1;
    if (this.recordTransaction !== undefined) {
      this.#append({ id: randomUUID(), type: 'topup', clientId, amount, createdAt: new Date().toISOString(), paymentIntentId });
    }
    return { credited: true, balance: client.balance };
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
    const unchanged = { changed: false, taken: 0, clientId: credited?.clientId ?? null, balance: client?.balance ?? null };
    if (amount <= previous) return unchanged;
    const before = this.#reversedSum(paymentIntentId);
    const after = addSaturating(before, amount - previous);
    keys.set(key, amount);
    this.#reversals.set(paymentIntentId, keys);
    if (credited === undefined || client === undefined) return { ...unchanged, changed: true };
    const taken = reversalTake(credited.amount, before, after);
    client.balance -= taken;
    return { changed: true, taken, clientId: credited.clientId, balance: client.balance };
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

  #ensure(clientId: string): ClientRecord {
    let client = this.#clients.get(clientId);
    if (client === undefined) {
      client = { balance: 0, topUps: 0, createdAt: new Date().toISOString() };
      this.#clients.set(clientId, client);
    }
    return client;
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
