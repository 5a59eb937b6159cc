// The emulator's object store: every Stripe object by id, plus the test payment methods that survive resets.
import { fingerprinter } from './cards.ts';
import { randomBytes } from 'node:crypto';
import { unixNow } from './ids.ts';
import type { Charge, Customer, Dispute, PaymentIntent, PaymentMethod, Refund, StoredObject } from './objects.ts';
import { TEST_CARD_IDS, cardPaymentMethod, usBankAccountPaymentMethod } from './test-payment-methods.ts';

/** All objects of one emulator instance. Maps keep insertion order, which lists rely on. */
export class Store {
  /** Fingerprint of a card number (or bank account), stable for this instance's lifetime, across resets. */
  readonly fingerprint = fingerprinter(randomBytes(16).toString('hex'));
  readonly paymentMethods = new Map<string, PaymentMethod>();
  readonly customers = new Map<string, Customer>();
  /** When each customer becomes visible to search (ms since epoch). */
  readonly customerCreatedAtMs = new Map<string, number>();
  readonly paymentIntents = new Map<string, PaymentIntent>();
  readonly charges = new Map<string, Charge>();
  readonly refunds = new Map<string, Refund>();
  readonly disputes = new Map<string, Dispute>();
  /** Card number behind each card payment method (never returned by the API). */
  readonly cardNumbers = new Map<string, string>();
  readonly #testMethodIds = new Set<string>();

  constructor() {
    this.#seedTestPaymentMethods();
  }

  /** True for the shared documented ids (`pm_card_visa`, …), which are never modified. */
  isTestPaymentMethod(id: string): boolean {
    return this.#testMethodIds.has(id);
  }

  /** Any stored object by id, for `expand[]`. */
  find(id: string): StoredObject | undefined {
    return (
      this.paymentMethods.get(id) ??
      this.customers.get(id) ??
      this.paymentIntents.get(id) ??
      this.charges.get(id) ??
      this.refunds.get(id) ??
      this.disputes.get(id)
    );
  }

  /** Drops everything except the documented test payment methods. */
  clear(): void {
    for (const map of [this.paymentMethods, this.customers, this.customerCreatedAtMs, this.paymentIntents, this.charges, this.refunds, this.disputes, this.cardNumbers]) {
      map.clear();
    }
    this.#testMethodIds.clear();
    this.#seedTestPaymentMethods();
  }

  #seedTestPaymentMethods(): void {
    const created = unixNow();
    const now = new Date();
    const exp = { month: now.getUTCMonth() + 1, year: now.getUTCFullYear() + 1 };
    for (const [id, number] of Object.entries(TEST_CARD_IDS)) {
      this.paymentMethods.set(id, cardPaymentMethod(id, number, this.fingerprint(number), exp, created));
      this.cardNumbers.set(id, number);
      this.#testMethodIds.add(id);
    }
    this.paymentMethods.set('pm_usBankAccount', usBankAccountPaymentMethod(this.fingerprint('110000000:000123456789'), created));
    this.#testMethodIds.add('pm_usBankAccount');
  }
}
