// Test helper of the examples' tests: an emulator for the file's tests, the examples run as their own processes against it, and their money path checked.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type RunningEmulator, startEmulator } from 'credit402-stripe-emulator';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { SOURCE_NODE_OPTIONS } from 'credit402-tooling/testing/kit';

/** This folder. */
export const EXAMPLES = fileURLToPath(new URL('.', import.meta.url));

/** The examples' default test keys (the emulator accepts any test key). */
export const KEYS = { publishable: 'pk_test_example', secret: 'sk_test_example' };

/** The processes of one test file: started against the file's emulator, stopped after each test. */
export interface ExampleProcesses {
  /** The emulator of the file's tests (started before them). */
  readonly emulator: RunningEmulator;
  /** Starts `command` in `cwd` with the emulator's URL in STRIPE_API_BASE. */
  start(command: string, args: string[], cwd: string, env?: Record<string, string>): ChildProcess;
  /** Runs an example with plain `node` (the repository resolves `credit402` to its TypeScript sources, hence the source options). */
  run(file: string, args?: string[], env?: Record<string, string>): ChildProcess;
}

/** Registers the emulator and the clean-up hooks of a test file; call it at the file's top level. */
export function useExampleProcesses(): ExampleProcesses {
  let emulator: RunningEmulator | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGTERM');
  });
  afterAll(async () => {
    await emulator?.close();
  });
  const processes: ExampleProcesses = {
    get emulator(): RunningEmulator {
      if (emulator === undefined) throw new Error('the emulator starts before the tests: use it inside a test');
      return emulator;
    },
    start(command, args, cwd, env = {}) {
      const child = spawn(command, args, { cwd, env: { ...process.env, STRIPE_API_BASE: processes.emulator.url, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      return child;
    },
    run(file, args = [], env = {}) {
      return processes.start(process.execPath, [...SOURCE_NODE_OPTIONS, join(EXAMPLES, file), ...args], EXAMPLES, env);
    },
  };
  return processes;
}

/** The URL a server example prints once it listens (`listening on http://…`); rejects when it exits first. */
export function listeningUrl(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolve((found[1] as string).replace(/\/$/, ''));
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}${err}`)));
  });
}

const encode = (payload: object): string => Buffer.from(JSON.stringify(payload)).toString('base64');
const decode = (header: string | null): Record<string, unknown> => JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8')) as Record<string, unknown>;

/** The two paid answers of {@link expectPaidThenSpent}, bodies unread. */
export interface PaidThenSpent {
  paid: Response;
  spent: Response;
}

/**
 * The examples' money path at `base`: `GET /api/weather` (priced 500, minTopUp 50000) answers 402, is paid by a new
 * card of `emulatorUrl` (49500 left, a charge id) and is then served from the balance (49000 left, no charge id), the
 * second time at `spendPath` (default `/api/weather`).
 */
export async function expectPaidThenSpent(emulatorUrl: string, base: string, spendPath = '/api/weather'): Promise<PaidThenSpent> {
  const challenge = await fetch(`${base}/api/weather`);
  expect(challenge.status).toBe(402);
  expect(decode(challenge.headers.get('payment-required'))).toMatchObject({ accepts: [{ amount: 500 }] });

  const { paymentMethodId } = await createPaymentMethod(emulatorUrl, KEYS, uniqueCardNumber());
  const paid = await fetch(`${base}/api/weather`, { headers: { payment: encode({ paymentMethodId }) } });
  expect(paid.status).toBe(200);
  const receipt = decode(paid.headers.get('payment-response'));
  expect(receipt).toMatchObject({ success: true, chargeId: expect.stringMatching(/^pi_/), creditsRemaining: 49_500 });

  const spent = await fetch(`${base}${spendPath}`, { headers: { payment: encode({ clientId: receipt.clientId }) } });
  expect(spent.status).toBe(200);
  const spentReceipt = decode(spent.headers.get('payment-response'));
  expect(spentReceipt).toMatchObject({ success: true, creditsRemaining: 49_000 });
  expect(spentReceipt.chargeId).toBeUndefined();
  return { paid, spent };
}

/**
 * The weather example's whole contract at `base`: the money path of {@link expectPaidThenSpent} with the handler's
 * bodies (temperature 21, the credits left), and `/health` free (200, no payment-response); resolves to the free
 * answer, body unread.
 */
export async function expectWeatherExample(emulatorUrl: string, base: string, spendPath?: string): Promise<Response> {
  const { paid, spent } = await expectPaidThenSpent(emulatorUrl, base, spendPath);
  expect(await paid.json()).toEqual({ temperature: 21, creditsRemaining: 49_500 });
  expect(await spent.json()).toEqual({ temperature: 21, creditsRemaining: 49_000 });

  const free = await fetch(`${base}/health`);
  expect(free.status).toBe(200);
  expect(free.headers.get('payment-response')).toBeNull();
  return free;
}
