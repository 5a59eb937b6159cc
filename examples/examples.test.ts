// The examples run as a user runs them: each server example as its own process against an emulator started here, paid 402 → card → balance; the README's snippets are the examples' code.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from 'credit402-stripe-emulator';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { createCredit402 } from 'credit402';
import { MemoryStore } from 'credit402/stores';
import { stripeApiBase } from 'credit402/stripe';
import { SOURCE_NODE_OPTIONS } from '../reference/testing/kit.ts';

const EXAMPLES = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(EXAMPLES, '..');
/** The examples' default test keys (the emulator accepts any test key). */
const KEYS = { publishable: 'pk_test_example', secret: 'sk_test_example' };

let emulator: RunningEmulator;
const children: ChildProcess[] = [];

beforeAll(async () => {
  emulator = await startEmulator();
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});
afterAll(async () => {
  await emulator.close();
});

/** Runs an example with plain `node` (the repository resolves `credit402` to its TypeScript sources, hence the source options). */
function run(file: string, args: string[] = [], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [...SOURCE_NODE_OPTIONS, join(EXAMPLES, file), ...args], {
    cwd: EXAMPLES,
    env: { ...process.env, STRIPE_API_BASE: emulator.url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** Everything the process printed once it exits; rejects on a non-zero exit. */
function output(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}${err}`))));
  });
}

/** The URL a server example prints once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
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

describe.each(['fastify-per-route.mjs', 'express.mjs', 'node-http.mjs'])('examples/%s', (file) => {
  it('answers 402, is paid by card, then serves from the balance; free routes stay free', async () => {
    const base = await listeningUrl(run(file, ['0']));

    const challenge = await fetch(`${base}/api/weather`);
    expect(challenge.status).toBe(402);
    const required = decode(challenge.headers.get('payment-required')) as { accepts: { amount: number; minTopUp: number }[] };
    expect(required.accepts[0]).toMatchObject({ amount: 500 });

    const { paymentMethodId } = await createPaymentMethod(emulator.url, KEYS, uniqueCardNumber());
    const paid = await fetch(`${base}/api/weather`, { headers: { payment: encode({ paymentMethodId }) } });
    expect(paid.status).toBe(200);
    const receipt = decode(paid.headers.get('payment-response'));
    expect(receipt).toMatchObject({ success: true, chargeId: expect.stringMatching(/^pi_/), creditsRemaining: 49_500 });
    expect(await paid.json()).toEqual({ temperature: 21, creditsRemaining: 49_500 });

    const spent = await fetch(`${base}/api/weather`, { headers: { payment: encode({ clientId: receipt.clientId }) } });
    expect(spent.status).toBe(200);
    expect(decode(spent.headers.get('payment-response'))).toMatchObject({ success: true, creditsRemaining: 49_000 });
    expect(decode(spent.headers.get('payment-response')).chargeId).toBeUndefined();

    const free = await fetch(`${base}/health`);
    expect(free.status).toBe(200);
    expect(free.headers.get('payment-response')).toBeNull();
  });
});

describe('examples/client.ts', () => {
  it('pays the Fastify example once, then spends from its balance', async () => {
    const base = await listeningUrl(run('fastify-per-route.mjs', ['0']));
    const { paymentMethodId } = await createPaymentMethod(emulator.url, KEYS, uniqueCardNumber());
    const printed = await output(run('client.ts', [`${base}/api/weather`], { CREDIT402_PAYMENT_METHOD: paymentMethodId }));
    const calls = printed.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ call: 1, status: 200, chargeId: expect.stringMatching(/^pi_/), creditsRemaining: 49_500 });
    expect(calls[1]).toMatchObject({ call: 2, status: 200, creditsRemaining: 49_000 });
    expect(calls[1]?.chargeId).toBeUndefined();
  });
});

describe('the library against an emulator in the test process', () => {
  it('charges a card at the emulator and serves the paid request', async () => {
    const stripe = await startEmulator(); // a Stripe API on a free port of 127.0.0.1, in this process
    const gate = createCredit402({
      stripeSecretKey: 'sk_test_example', stripePublishableKey: 'pk_test_example',
      serverSecret: 'example-server-secret-change-me-0123456789', store: new MemoryStore(),
      stripeApi: stripeApiBase(stripe.url), // the Stripe SDK talks to the emulator
      routes: { 'GET /api/weather': { amount: 500 } },
    });
    const card = await createPaymentMethod(stripe.url, { publishable: 'pk_test_example', secret: 'sk_test_example' }, uniqueCardNumber());
    const payment = Buffer.from(JSON.stringify({ paymentMethodId: card.paymentMethodId })).toString('base64');
    const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: payment });
    expect(decision.action).toBe('serve'); // charged 5.00 usd at the emulator, 49500 units left
    await stripe.close();
    if (decision.action === 'serve') expect(decision.payment.creditsRemaining).toBe(49_500);
  });
});

/** `code` indented by `indent` spaces on each non-empty line. */
function indented(code: string, indent: number): string {
  return code.replace(/^(?=.)/gm, ' '.repeat(indent));
}

/** Every fenced block announced by `<!-- example: path -->` in the README and docs/, with where it is. */
function announcedSnippets(): { page: string; path: string; code: string }[] {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  const found: { page: string; path: string; code: string }[] = [];
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const match of text.matchAll(/<!-- example: (\S+) -->\n```\w*\n([\s\S]*?)```/g)) {
      found.push({ page, path: match[1] as string, code: match[2] as string });
    }
  }
  return found;
}

describe('the documentation quotes the examples', () => {
  const snippets = announcedSnippets();

  it('each README and docs snippet marked as an example is verbatim in that file (uniformly indented at most)', () => {
    expect(snippets.length).toBeGreaterThan(0);
    for (const snippet of snippets) {
      const source = readFileSync(join(ROOT, snippet.path), 'utf8');
      const quoted = [0, 2, 4, 6].some((indent) => source.includes(indented(snippet.code, indent))); // verbatim, but for a uniform indentation
      expect(quoted, `${snippet.page} quotes ${snippet.path}:\n${snippet.code}`).toBe(true);
    }
  });

  it('the README has a quick start from each example', () => {
    const quoted = new Set(snippets.filter((snippet) => snippet.page === 'README.md').map((snippet) => snippet.path));
    for (const file of ['fastify-per-route.mjs', 'express.mjs', 'node-http.mjs', 'client.ts']) expect(quoted).toContain(`examples/${file}`);
  });
});
