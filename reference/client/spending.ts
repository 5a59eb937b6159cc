// The client's spending limits: a top-up is counted when it is sent and released only when surely not charged.
import { Credit402PaymentError, Credit402SpendingLimitError } from './errors.ts';

/** One reserved top-up: `release()` when the answer proves nothing was charged. */
interface Reservation {
  release(): void;
}

/**
 * The payment errors that say the payment was refused before any charge: a declined card (a processor card error, no
 * PaymentIntent succeeded), a top-up below the minimum and an invalid payload (refused before the processor). Every
 * other outcome of a sent top-up may have charged: `payment_failed` (the processor may have charged, CR-7.20), a 503
 * `service_unavailable` (CR-7.22), a success with or without `chargeId`, a second challenge, a redirect, a lost answer.
 */
const NOT_CHARGED = new Set(['card_declined', 'top_up_below_minimum', 'invalid_payment']);

/** True when `error`, thrown for the answer to a paying request, proves that nothing was charged. */
export const provesNoCharge = (error: unknown): boolean => error instanceof Credit402PaymentError && error.status === 402 && NOT_CHARGED.has(error.code);

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

  /** Units of the top-ups sent so far, but those whose answer proved that nothing was charged. */
  get spent(): number {
    return this.#spent;
  }

  /**
   * Reserves `units` or throws Credit402SpendingLimitError. Synchronous: call it right before sending, so that calls
   * at the same time each see the others' top-ups and together never pass maxTopUpPerSession.
   */
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
