// `credit402 client-driver`: credit402/client driven by the conformance kit's client mode (harness/docs/client-driver.md): JSON lines in, one reply each out.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { createCredit402Fetch } from './credit402-fetch.ts';
import { readInstruction, type CallbackInstruction, type CallInstruction, type Instruction } from './driver-instructions.ts';
import { Credit402PaymentError, Credit402ProtocolError, Credit402SpendingLimitError, Credit402TopUpError } from './errors.ts';
import { FileClientIdStorage } from './file-storage.ts';
import type { PaymentDecision, PaymentRequiredInfo } from './options.ts';
import type { ClientIdStorage } from './storage.ts';

/** The underlying fetch a client is given. */
export type Send = (request: Request) => Promise<Response>;
/** The on-payment-required callback a client is given. */
export type Callback = (info: PaymentRequiredInfo) => Promise<PaymentDecision | null>;

/** Where a driven client differs from credit402/client as shipped (the kit's self-test drives mutants so); made anew with every client. */
export interface ClientDriverHooks {
  fetch?: (send: Send) => Send;
  storage?: (storage: ClientIdStorage) => ClientIdStorage;
  callback?: (callback: Callback) => Callback;
  /** A new client for every call, over the same storage and the same spending limit. */
  clientPerCall?: boolean;
}

/** Where the driver reads and writes, and what it drives. */
export interface ClientDriverOptions {
  input?: Readable;
  output?: Writable;
  /** The kit's state directory (CREDIT402_CLIENT_STATE); absent: a temporary one, removed when the input ends. */
  stateDir?: string;
  hooks?: () => ClientDriverHooks;
}

/** What the callback received, as the contract reports it. */
interface CallbackRecord {
  url: string;
  amount: number;
  minTopUp: number;
  currency: string;
  publishableKey: string;
  error: string | null;
}

/** The contract's error of a call that raised `error`. */
function describeError(error: unknown): { kind: string; code: string | null; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Credit402PaymentError) return { kind: 'payment', code: error.code, message };
  if (error instanceof Credit402ProtocolError) return { kind: 'protocol', code: null, message };
  if (error instanceof Credit402SpendingLimitError || error instanceof Credit402TopUpError) return { kind: 'limit', code: null, message };
  return { kind: 'other', code: null, message };
}

/** One driven client: its storage in `stateDir`, its spending limit, the callback of the `fetch` instruction being run. */
class DrivenClient {
  #spendingLimit: number | undefined;
  #current: { callback: CallbackInstruction; records: CallbackRecord[] } | undefined;
  #client: (url: string, init: RequestInit) => Promise<Response>;

  constructor(
    private readonly stateDir: string,
    private readonly hooks: () => ClientDriverHooks,
  ) {
    this.#client = this.#makeClient();
  }

  /** The caller's on-payment-required callback: records what it receives and answers as the instruction says. */
  readonly #answer: Callback = async (info) => {
    const { accepts, challenge } = info;
    const { amount, minTopUp, currency, publishableKey } = accepts;
    this.#current?.records.push({ url: info.url, amount, minTopUp, currency, publishableKey, error: challenge.error ?? null });
    const callback = this.#current?.callback;
    if (callback === undefined || callback.decline === true) return null;
    return callback.topUpAmount === undefined ? { paymentMethodId: callback.paymentMethodId } : { paymentMethodId: callback.paymentMethodId, topUpAmount: callback.topUpAmount };
  };

  /** A new client over the persisted storage, as the hooks change it. */
  #makeClient(): (url: string, init: RequestInit) => Promise<Response> {
    const hooks = this.hooks();
    const file = new FileClientIdStorage(join(this.stateDir, 'client-ids.json'));
    const storage = hooks.storage ? hooks.storage(file) : file;
    const send: Send = (request) => fetch(request);
    const options = { onPaymentRequired: hooks.callback ? hooks.callback(this.#answer) : this.#answer, storage, fetch: hooks.fetch ? hooks.fetch(send) : send };
    const make = (limit: number | undefined) => createCredit402Fetch(limit === undefined ? options : { ...options, maxTopUpPerSession: limit });
    if (!hooks.clientPerCall) return make(this.#spendingLimit);
    let spent = 0;
    return async (url, init) => {
      const fresh = make(this.#spendingLimit === undefined ? undefined : Math.max(0, this.#spendingLimit - spent));
      try {
        return await fresh(url, init);
      } finally {
        spent += fresh.getSessionSpending();
      }
    };
  }

  async #call(instruction: CallInstruction) {
    try {
      const response = await this.#client(instruction.url, { method: instruction.method, headers: instruction.headers, body: instruction.body ?? undefined });
      const body = await response.text();
      return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body, error: null };
    } catch (error) {
      return { status: null, headers: {}, body: null, error: describeError(error) };
    }
  }

  async run(instruction: Instruction): Promise<Record<string, unknown>> {
    const { id } = instruction;
    switch (instruction.op) {
      case 'reset':
        for (const entry of await readdir(this.stateDir)) await rm(join(this.stateDir, entry), { recursive: true, force: true });
        this.#spendingLimit = instruction.spendingLimit;
        this.#client = this.#makeClient();
        return { id, ok: true };
      case 'restart':
        this.#client = this.#makeClient();
        return { id, ok: true };
      case 'fetch': {
        const records: CallbackRecord[] = [];
        this.#current = { callback: instruction.callback, records };
        try {
          const results = await Promise.all(instruction.calls.map((call) => this.#call(call)));
          return { id, results, callbacks: records };
        } finally {
          this.#current = undefined;
        }
      }
      default:
        return { id, error: 'unknown op' };
    }
  }
}

/** The reply to one line; an instruction that cannot be acted on is answered with its error. */
async function replyTo(client: DrivenClient, line: string): Promise<Record<string, unknown>> {
  const read = readInstruction(line);
  if (!read.ok) return { id: read.id, error: read.error };
  try {
    return await client.run(read.instruction);
  } catch (error) {
    return { id: read.instruction.id, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Drives credit402/client as the conformance kit's client mode asks (`credit402-conformance client --client-cmd
 * "npx credit402 client-driver"`): reads instructions from `input` (stdin), answers each in order on `output`
 * (stdout); resolves when the input ends.
 */
export async function runClientDriver(options: ClientDriverOptions = {}): Promise<void> {
  const { input = process.stdin, output = process.stdout, hooks = () => ({}) } = options;
  const stateDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'credit402-client-driver-')));
  const client = new DrivenClient(stateDir, hooks);
  let queue = Promise.resolve();
  const lines = createInterface({ input });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    queue = queue.then(async () => void output.write(`${JSON.stringify(await replyTo(client, line))}\n`));
  });
  await new Promise<void>((resolve) => lines.once('close', resolve));
  await queue;
  if (options.stateDir === undefined) await rm(stateDir, { recursive: true, force: true });
}
