// The Redis server's clock as this process sees it: a lower bound of its offset to performance.now(), so that a deduction's deadline can be checked by the script itself (TIME).
import { remoteMarginMs } from './deduction-deadline.ts';
import type { BackendDeduction } from './store-backend.ts';
import type { RedisConnection } from './redis-lua.ts';

/** How often the offset is measured again: the two clocks drift apart, and the server's may be set. */
const REFRESH_MS = 10_000;
/** Measurements the offset is taken from (the highest lower bound among them): a slow answer only lowers one. */
const KEPT = 3;

/** The server time of a TIME reply, in ms. */
function timeOf(reply: unknown): number {
  const [seconds, micros] = Array.isArray(reply) ? reply.map((part) => Number(String(part))) : [];
  if (!Number.isSafeInteger(seconds) || !Number.isSafeInteger(micros)) throw new TypeError(`unexpected Redis reply for TIME: ${String(reply)}`);
  return (seconds as number) * 1000 + (micros as number) / 1000;
}

/**
 * One lower bound of (server time − performance.now()) per node: the server read its clock before its answer was
 * received here, so `server time − time received` can only be below the true offset. The lowest over the nodes of a
 * cluster, so that a deadline is early rather than late on every node.
 */
async function measure(connection: RedisConnection): Promise<number> {
  const bounds = await connection.onEveryNode(async (send) => {
    const reply = await send(['TIME']);
    return timeOf(reply) - performance.now();
  });
  return Math.min(...bounds);
}

/**
 * The server's clock for deadlines. A deduction's caller stops waiting at `notAfter` (performance.now()); the script
 * refuses it after `notAfter − margin + offset` by the server's TIME, where `offset` is a lower bound of the true one,
 * so that deadline is never later than the caller's minus the margin (deduction-deadline.ts): a command that reaches
 * the server after a stall does nothing. Measured at the first use, then every {@link REFRESH_MS} in the background
 * (an unref'd timer, stopped by {@link stop}); a failed measurement keeps the last ones. Clock steps on the server
 * are followed within {@link KEPT} measurements.
 */
export class RedisClock {
  readonly #connection: RedisConnection;
  #bounds: number[] = [];
  #first: Promise<number> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  constructor(connection: RedisConnection) {
    this.#connection = connection;
  }

  /** The offset (server ms − performance.now()), once measured. */
  get offset(): number | undefined {
    return this.#bounds.length === 0 ? undefined : Math.max(...this.#bounds);
  }

  /** Resolves the offset, measuring it first when it is not known yet; starts the background refresh. */
  ready(): Promise<number> {
    const known = this.offset;
    if (known !== undefined) return Promise.resolve(known);
    if (this.#first === undefined) {
      const first = this.#measure().then(() => this.offset as number);
      first.catch(() => {
        if (this.#first === first) this.#first = undefined; // asked again next time
      });
      this.#first = first;
    }
    return this.#first;
  }

  /** The server-time deadline (ms, as text) of `deduction` (or refund), or '' when it has none; `offset` from {@link ready}. */
  deadlineOf(deduction: Pick<BackendDeduction, 'notAfter' | 'timeoutMs'>, offset: number): string {
    const { notAfter, timeoutMs } = deduction;
    if (notAfter === undefined || timeoutMs === undefined) return '';
    return String(Math.floor(notAfter - remoteMarginMs(timeoutMs) + offset));
  }

  /** Stops the background refresh. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #measure(): Promise<void> {
    const bound = await measure(this.#connection);
    this.#bounds = [...this.#bounds.slice(1 - KEPT), bound];
    if (this.#timer === undefined && !this.#stopped) {
      this.#timer = setInterval(() => void this.#measure().catch(() => {}), REFRESH_MS);
      this.#timer.unref();
    }
  }
}
