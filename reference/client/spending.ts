// The client's spending limits: a top-up is reserved before it is sent and released only when surely not charged.
import { Credit402SpendingLimitError } from './errors.ts';

/** One reserved top-up: `release()` when the answer proves nothing was charged. */
interface Reservation {
  release(): void;
}

/** Enforces maxTopUpPerPayment and maxTopUpPerSession (units); either may be absent (no limit). */
export class SpendingGuard {
  readonly #perPayment: number;
  readonly #perSession: number;
  #spent = 0;

  constructor(perPayment = Number.POSITIVE_INFINITY, perSession = Number.POSITIVE_INFINITY) {
    for (const [name, value] of [['maxTopUpPerPayment', perPayment], ['maxTopUpPerSession', perSession]] as const) {
      if (!(value >= 0)) throw new TypeError(`credit402: ${name} must be a non-negative number of units`);
    }
    this.#perPayment = perPayment;
    this.#perSession = perSession;
  }

  /** Units charged or in flight so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Reserves `units` or throws Credit402SpendingLimitError. */
  reserve(units: number): Reservation {
    if (units > this.#perPayment) throw new Credit402SpendingLimitError('maxTopUpPerPayment', units, this.#perPayment, this.#spent);
    if (this.#spent + units > this.#perSession) {
      throw new Credit402SpendingLimitError('maxTopUpPerSession', units, this.#perSession, this.#spent);
    }
    this.#spent += units;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#spent -= units;
      },
    };
  }
}
