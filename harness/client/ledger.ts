// The scripted server's money: balances per origin and clientId, clientIds derived from payment methods, and the charges made.
import { createHmac, randomBytes } from 'node:crypto';

/** One of the scripted server's two origins (CR-16.9). */
export type OriginName = 'A' | 'B';

/** A charge: a new-payment request that reached the charge step. */
export interface Charge {
  origin: OriginName;
  paymentMethodId: string;
  clientId: string;
  units: number;
  chargeId: string;
}

/** Balances and charges of both origins; each origin derives its own clientIds (its own secret), as two servers do. */
export class Ledger {
  readonly #secret = randomBytes(32);
  readonly #balances = new Map<string, number>();
  readonly charges: Charge[] = [];

  /** Forgets every balance and charge. */
  clear(): void {
    this.#balances.clear();
    this.charges.length = 0;
  }

  /** The clientId `origin` derives for a payment method: HMAC-SHA256 with its secret (each payment method id is its own card). */
  clientIdFor(origin: OriginName, paymentMethodId: string): string {
    return createHmac('sha256', this.#secret).update(`${origin}\n${paymentMethodId}`).digest('hex');
  }

  balance(origin: OriginName, clientId: string): number {
    return this.#balances.get(`${origin} ${clientId}`) ?? 0;
  }

  setBalance(origin: OriginName, clientId: string, units: number): void {
    this.#balances.set(`${origin} ${clientId}`, units);
  }

  /** deductBalance of the seed: the new balance, or undefined when it does not cover `amount`. */
  deduct(origin: OriginName, clientId: string, amount: number): number | undefined {
    const balance = this.balance(origin, clientId);
    if (balance < amount) return undefined;
    this.setBalance(origin, clientId, balance - amount);
    return balance - amount;
  }

  /** Charges `units` to the card and credits them; returns the charge. */
  charge(origin: OriginName, paymentMethodId: string, units: number): Charge {
    const clientId = this.clientIdFor(origin, paymentMethodId);
    const charge = { origin, paymentMethodId, clientId, units, chargeId: `pi_kit${randomBytes(9).toString('hex')}` };
    this.charges.push(charge);
    this.setBalance(origin, clientId, this.balance(origin, clientId) + units);
    return charge;
  }
}
