// The kit's client driver for credit402/client (harness/docs/client-driver.md): JSON lines in, one reply each out; `--mutant NAME` drives a mutant.
// Run: tsx --conditions=credit402-source reference/self-test/client-driver.ts [--mutant NAME]
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  createCredit402Fetch,
  Credit402PaymentError,
  Credit402ProtocolError,
  Credit402SpendingLimitError,
  Credit402TopUpError,
  FileClientIdStorage,
  type PaymentRequiredInfo,
} from 'credit402/client';
import { readInstruction, type CallbackInstruction, type CallInstruction, type Instruction } from './client-driver-instructions.ts';
import { mutantHooks, type Callback, type Send } from './client-driver-mutants.ts';
import { clientMutant } from './client-mutants.ts';

/** What the callback received, as the contract reports it. */
interface CallbackRecord {
  url: string;
  amount: number;
  minTopUp: number;
  currency: string;
  publishableKey: string;
  error: string | null;
}

const { values } = parseArgs({ options: { mutant: { type: 'string' } } });
const mutant = values.mutant;
if (mutant !== undefined && clientMutant(mutant) === undefined) {
  process.stderr.write(`client-driver: unknown mutant ${mutant}\n`);
  process.exit(2);
}
/** The kit's state directory; a temporary one (removed at exit) when the driver runs on its own. */
const givenState = process.env.CREDIT402_CLIENT_STATE || undefined;
const stateDir = givenState ?? (await mkdtemp(join(tmpdir(), 'credit402-client-driver-')));
const storagePath = join(stateDir, 'client-ids.json');

let spendingLimit: number | undefined;
/** The callback of the `fetch` instruction being run, and what it was asked. */
let current: { callback: CallbackInstruction; records: CallbackRecord[] } | undefined;

/** The caller's on-payment-required callback: records what it receives and answers as the instruction says. */
const answer: Callback = async (info: PaymentRequiredInfo) => {
  const { accepts, challenge } = info;
  const { amount, minTopUp, currency, publishableKey } = accepts;
  current?.records.push({ url: info.url, amount, minTopUp, currency, publishableKey, error: challenge.error ?? null });
  const callback = current?.callback;
  if (callback === undefined || callback.decline === true) return null;
  return callback.topUpAmount === undefined ? { paymentMethodId: callback.paymentMethodId } : { paymentMethodId: callback.paymentMethodId, topUpAmount: callback.topUpAmount };
};

/** A new client over the persisted storage, as the mutant (if any) changes it. */
function makeClient(): (url: string, init: RequestInit) => Promise<Response> {
  const hooks = mutant === undefined ? {} : mutantHooks(mutant);
  const file = new FileClientIdStorage(storagePath);
  const storage = hooks.storage ? hooks.storage(file) : file;
  const send: Send = (request) => fetch(request);
  const options = { onPaymentRequired: hooks.callback ? hooks.callback(answer) : answer, storage, fetch: hooks.fetch ? hooks.fetch(send) : send };
  const make = (limit: number | undefined) => createCredit402Fetch(limit === undefined ? options : { ...options, maxTopUpPerSession: limit });
  if (!hooks.clientPerCall) return make(spendingLimit);
  let spent = 0;
  return async (url, init) => {
    const fresh = make(spendingLimit === undefined ? undefined : Math.max(0, spendingLimit - spent));
    try {
      return await fresh(url, init);
    } finally {
      spent += fresh.getSessionSpending();
    }
  };
}

let client = makeClient();

/** The contract's error of a call that raised `error`. */
function describe(error: unknown): { kind: string; code: string | null; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Credit402PaymentError) return { kind: 'payment', code: error.code, message };
  if (error instanceof Credit402ProtocolError) return { kind: 'protocol', code: null, message };
  if (error instanceof Credit402SpendingLimitError || error instanceof Credit402TopUpError) return { kind: 'limit', code: null, message };
  return { kind: 'other', code: null, message };
}

async function call(instruction: CallInstruction) {
  try {
    const response = await client(instruction.url, { method: instruction.method, headers: instruction.headers, body: instruction.body ?? undefined });
    const body = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body, error: null };
  } catch (error) {
    return { status: null, headers: {}, body: null, error: describe(error) };
  }
}

async function run(instruction: Instruction): Promise<Record<string, unknown>> {
  const { id } = instruction;
  switch (instruction.op) {
    case 'reset':
      for (const entry of await readdir(stateDir)) await rm(join(stateDir, entry), { recursive: true, force: true });
      spendingLimit = instruction.spendingLimit;
      client = makeClient();
      return { id, ok: true };
    case 'restart':
      client = makeClient();
      return { id, ok: true };
    case 'fetch': {
      const records: CallbackRecord[] = [];
      current = { callback: instruction.callback, records };
      try {
        const results = await Promise.all(instruction.calls.map(call));
        return { id, results, callbacks: records };
      } finally {
        current = undefined;
      }
    }
    default:
      return { id, error: 'unknown op' };
  }
}

/** Answers one line; an instruction that cannot be acted on is answered with its error. */
async function reply(line: string): Promise<void> {
  if (line.trim() === '') return;
  const read = readInstruction(line);
  let out: Record<string, unknown>;
  if (!read.ok) out = { id: read.id, error: read.error };
  else {
    try {
      out = await run(read.instruction);
    } catch (error) {
      out = { id: read.instruction.id, error: error instanceof Error ? error.message : String(error) };
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => (queue = queue.then(() => reply(line))));
lines.on('close', () => {
  void queue.then(async () => {
    if (givenState === undefined) await rm(stateDir, { recursive: true, force: true });
    process.exit(0);
  });
});
