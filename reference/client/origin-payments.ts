// The payments made per origin, so that calls challenged while one is under way wait and present its clientId (CR-16.8).

/** The latest payment that produced a clientId for an origin, numbered in the order payments ended. */
interface Produced {
  clientId: string;
  serial: number;
}

/**
 * Per origin: the payment under way, if any, and the clientId the latest one produced. Calls read a mark before they
 * send; a call challenged afterwards waits for the payment under way, then presents the clientId of any payment that
 * ended after its mark instead of asking its callback. Every method but the wait is synchronous, so calls challenged
 * at the same moment see one another's payment.
 */
export class OriginPayments {
  readonly #underWay = new Map<string, Promise<void>>();
  readonly #produced = new Map<string, Produced>();
  #serial = 0;

  /** A mark of the payments to `origin` so far, to pass to {@link newerClientId} later. */
  mark(origin: string): number {
    return this.#produced.get(origin)?.serial ?? 0;
  }

  /** The end of the payment to `origin` under way, if any. */
  underWay(origin: string): Promise<void> | undefined {
    return this.#underWay.get(origin);
  }

  /** The clientId produced by a payment to `origin` that ended after `mark`, if any. */
  newerClientId(origin: string, mark: number): string | undefined {
    const produced = this.#produced.get(origin);
    return produced !== undefined && produced.serial > mark ? produced.clientId : undefined;
  }

  /** Starts a payment to `origin`; call the returned function once with the clientId it produced (undefined: none). */
  start(origin: string): (clientId: string | undefined) => void {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.#underWay.set(origin, ended);
    return (clientId) => {
      if (clientId !== undefined) this.#produced.set(origin, { clientId, serial: ++this.#serial });
      if (this.#underWay.get(origin) === ended) this.#underWay.delete(origin);
      end();
    };
  }
}
