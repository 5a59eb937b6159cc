// The channel to the client's driver: one JSON instruction per line on its stdin, one reply per line on its stdout, 30 s each.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  MalformedReply,
  parseFetchReply,
  parseOkReply,
  parseReplyLine,
  type CallbackAnswer,
  type CallSpec,
  type FetchReply,
  type Instruction,
} from './driver-replies.ts';

/** The driver broke the contract (a malformed reply, no reply in time, it exited): a run error, not a requirement's failure. */
export class DriverError extends Error {
  override name = 'DriverError';
}

/** The driver answered `{"error": …}` to an instruction it does not support: the scenario is not run. */
export class UnsupportedInstruction extends Error {
  override name = 'UnsupportedInstruction';
}

/** How the channel names and watches its driver. */
interface ChannelOptions {
  /** How the driver is named in errors, e.g. its command line. */
  name: string;
  /** Per instruction (default 30 s). */
  timeoutMs?: number;
  /** How the driver process ended, once it has. */
  exitStatus?: () => string | undefined;
}

type Waiter = { resolve: (line: string) => void; reject: (error: Error) => void };

/** Sends instructions one at a time and reads their replies. */
export class DriverChannel {
  readonly #input: Writable;
  readonly #options: ChannelOptions;
  readonly #lines: string[] = [];
  #waiter: Waiter | undefined;
  #closed: string | undefined;
  #nextId = 1;
  #failure: DriverError | undefined;
  /** Every instruction sent and the raw reply line, for the failure transcripts. */
  readonly log: Array<{ instruction: string; reply?: string }> = [];

  constructor(input: Writable, output: Readable, options: ChannelOptions) {
    this.#input = input;
    this.#options = options;
    input.on('error', () => undefined); // EPIPE once the driver is gone: reported as its exit
    const lines = createInterface({ input: output, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      if (this.#waiter) {
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter.resolve(line);
      } else this.#lines.push(line);
    });
    lines.on('close', () => {
      // Its stdout usually closes just before the process's exit is known: wait a moment so the error says how it ended.
      void this.#exitKnown().then(() => {
        this.#closed = 'its stdout closed';
        this.#waiter?.reject(this.#gone());
        this.#waiter = undefined;
      });
    });
  }

  /** The contract breach that ended the channel, if one did; every later instruction fails with it. */
  get failure(): DriverError | undefined {
    return this.#failure;
  }

  async #exitKnown(): Promise<void> {
    if (!this.#options.exitStatus) return;
    for (let waited = 0; waited < 1000 && this.#options.exitStatus?.() === undefined; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  #gone(): DriverError {
    const exit = this.#options.exitStatus?.();
    return new DriverError(`the driver ${this.#options.name} ${exit ?? 'closed its stdout'} (see client.log for its stderr)`);
  }

  #nextLine(timeoutMs: number): Promise<string> {
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#closed) return Promise.reject(this.#gone());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        reject(new DriverError(`the driver ${this.#options.name} did not reply within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.#waiter = {
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Sends one instruction and resolves to its reply, read as `read` says; a breach of the contract ends the channel. */
  async #send<T>(instruction: Instruction, read: (reply: Record<string, unknown>) => T): Promise<T> {
    if (this.#failure) throw this.#failure;
    const id = this.#nextId++;
    const text = JSON.stringify({ id, ...instruction });
    const entry: { instruction: string; reply?: string } = { instruction: text };
    this.log.push(entry);
    try {
      this.#input.write(`${text}\n`);
      const line = await this.#nextLine(this.#options.timeoutMs ?? 30_000);
      entry.reply = line;
      const reply = parseReplyLine(line, id);
      if (typeof reply.error === 'string') throw new UnsupportedInstruction(`the driver does not support "${instruction.op}": ${reply.error}`);
      return read(reply);
    } catch (error) {
      if (error instanceof UnsupportedInstruction) throw error;
      const reason = error instanceof MalformedReply ? `sent a malformed reply to ${instruction.op} #${id}: ${error.message}` : undefined;
      this.#failure = reason ? new DriverError(`the driver ${this.#options.name} ${reason}`) : error instanceof DriverError ? error : new DriverError(String(error));
      throw this.#failure;
    }
  }

  /** `reset`: a new client with nothing kept; `spendingLimit` only for a driver that declared the capability. */
  reset(spendingLimit?: number): Promise<void> {
    return this.#send({ op: 'reset', ...(spendingLimit !== undefined ? { spendingLimit } : {}) }, parseOkReply);
  }

  /** `restart`: the same client, made again from what it persisted. */
  restart(): Promise<void> {
    return this.#send({ op: 'restart' }, parseOkReply);
  }

  /** `fetch`: the calls, all started at once, with the callback answering `callback`. */
  fetch(calls: CallSpec[], callback: CallbackAnswer): Promise<FetchReply> {
    return this.#send({ op: 'fetch', calls, callback }, (reply) => parseFetchReply(reply, calls.length));
  }

  /** Closes the driver's stdin: the driver exits (contract). */
  close(): void {
    this.#input.end();
  }
}
