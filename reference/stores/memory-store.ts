// In-process store: Maps in memory, atomic because no method awaits between its read and its write.
import { randomUUID } from 'node:crypto';
import type { ClientRecord, Store, TopUpCredit, TopUpCreditResult, TransactionRecord } from './store.ts';
import {
  assertNoOverflow,
  assertNonEmptyString,
  assertSafeInteger,
  assertTopUpCredit,
  assertTransactionRecord,
  closedError,
  copyTransaction,
} from './validate.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Keep a transaction log (`recordTransaction` / `listTransactions`); default true. */
  recordTransactions?: boolean;
}

/**
 * A store held in this process's memory, for tests and single-process servers.
 * Nothing survives a restart and nothing is shared between processes.
 */
export class MemoryStore implements Store {
  readonly recordTransaction?: (record: TransactionRecord) => Promise<void>;
  readonly listTransactions?: (clientId: string) => Promise<TransactionRecord[]>;

  readonly #clients = new Map<string, ClientRecord>();
  readonly #creditedPaymentIntents = new Set<string>();
  readonly #transactions = new Map<string, TransactionRecord[]>();
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
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

  async deductBalance(clientId: string, amount: number): Promise<number | null> {
    this.#assertOpen();
    assertNonEmptyString(clientId, 'clientId');
    assertSafeInteger(amount, 'amount', 0);
    const client = this.#clients.get(clientId);
    if (client === undefined || client.balance < amount) return null;
    client.balance -= amount;
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
    if (this.#creditedPaymentIntents.has(paymentIntentId)) {
      return { credited: false, balance: this.#clients.get(clientId)?.balance ?? 0 };
    }
    assertNoOverflow(this.#clients.get(clientId)?.balance ?? 0, amount);
    this.#creditedPaymentIntents.add(paymentIntentId);
    const client = this.#ensure(clientId);
    client.balance += amount;
    client.topUps += 1;
    if (this.recordTransaction !== undefined) {
      this.#append({ id: randomUUID(), type: 'topup', clientId, amount, createdAt: new Date().toISOString(), paymentIntentId });
    }
    return { credited: true, balance: client.balance };
  }

  async close(): Promise<void> {
    this.#closed = true;
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
    if (log === undefined) this.#transactions.set(record.clientId, [record]);
    else log.push(record);
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError('MemoryStore');
  }
}
