// A store server's clock as this process sees it: a lower bound of its offset to performance.now(), so that the server itself can refuse a deduction that arrives after its caller's deadline.
import { remoteMarginMs } from './deduction-deadline.ts';
import type { BackendDeduction } from './store-backend.ts';

/** How often the offset is measured again: the two clocks drift apart, and the server's may be set. */
const REFRESH_MS = 10_000;
/** Measurements the offset is taken from (the highest lower bound among them): a slow answer only lowers one. */
const KEPT = 3;

/**
 * The server's clock for deadlines. `measure` resolves one lower bound of (server ms − performance.now()): the server
 * read its clock before its answer was received here, so `server time − time received` can only be below the true
 * offset. A deduction's caller stops waiting at `notAfter` (performance.now()); the server refuses it after
 * `notAfter − margin + offset`, where `offset` is a lower bound of the true one, so that deadline is never later than
 * the caller's minus the margin (deduction-deadline.ts): a command that reaches the server after a stall does nothing.
 * Measured at the first use, then every {@link REFRESH_MS} in the background (an unref'd timer, stopped by
 * {@link stop}); a failed measurement keeps the last ones. Clock steps on the server are followed within
 * {@link KEPT} measurements.
 */
export class ServerClock {
  readonly #measure: () => Promise<number>;
  #bounds: number[] = [];
  #offset: number | undefined;
  #first: Promise<number> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  constructor(measure: () => Promise<number>) {
    this.#measure = measure;
  }

  /** The offset (server ms − performance.now()), once measured. */
  get offset(): number | undefined {
    return this.#offset;
  }

  /** Resolves the offset, measuring it first when it is not known yet; starts the background refresh. */
  ready(): Promise<number> {
    const known = this.#offset;
    if (known !== undefined) return Promise.resolve(known);
    if (this.#first === undefined) {
      const first = this.#refresh().then(() => this.#offset as number);
      first.catch(() => {
        if (this.#first === first) this.#first = undefined; // asked again next time
      });
      this.#first = first;
    }
    return this.#first;
  }

  /**
   * The offset for `calls`: at once when known, or when none of them has a deadline (0, unused); else a promise of the
   * first measurement, so that a call already on its way is not held up by a `then` it does not need.
   */
  offsetFor(calls: readonly Pick<BackendDeduction, 'notAfter'>[]): number | Promise<number> {
    const offset = this.#offset;
    if (offset !== undefined || calls.every((call) => call.notAfter === undefined)) return offset ?? 0;
    return this.ready();
  }

  /** The server-time deadline (ms) of `deduction` (or refund), or undefined when it has none; `offset` from {@link ready}. */
  deadlineOf(deduction: Pick<BackendDeduction, 'notAfter' | 'timeoutMs'>, offset: number): number | undefined {
    const { notAfter, timeoutMs } = deduction;
    if (notAfter === undefined || timeoutMs === undefined) return undefined;
    return Math.floor(notAfter - remoteMarginMs(timeoutMs) + offset);
  }

  /** Stops the background refresh. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #refresh(): Promise<void> {
    const bound = await this.#measure();
    this.#bounds = [...this.#bounds.slice(1 - KEPT), bound];
    this.#offset = Math.max(...this.#bounds);
    if (this.#timer === undefined && !this.#stopped) {
      this.#timer = setInterval(() => void this.#refresh().catch(() => {}), REFRESH_MS);
      this.#timer.unref();
    }
  }
}
