// The fetch adapter in Cloudflare's runtime: a tiny Worker bundled from the library's sources, run by workerd (the @cloudflare/workerd-linux-64 binary), challenged then paid against the emulator over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { type RunningEmulator, startEmulator } from 'credit402-stripe-emulator';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBase64Json, encodeBase64Json } from '../../protocol/base64-json.ts';
import { REPO_ROOT } from 'credit402-tooling/testing/kit';
import { signPayload } from 'credit402-stripe-emulator';

/** The workerd binary of @cloudflare/workerd-linux-64 (x64 Linux only), or undefined elsewhere. */
function workerdBinary(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  const bin = join(dirname(createRequire(import.meta.url).resolve('@cloudflare/workerd-linux-64/package.json')), 'bin', 'workerd');
  return existsSync(bin) ? bin : undefined;
}

/** Bundles the test Worker as workerd loads it: one ES module, the workspace packages from their sources, `node:` modules left to `nodejs_compat`. */
async function bundleWorker(outfile: string): Promise<void> {
  await build({
    entryPoints: [join(REPO_ROOT, 'tooling/testing/workerd-worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'credit402-source', 'import', 'default'],
    mainFields: ['module', 'main'],
    external: ['node:*'],
    outfile,
    logLevel: 'silent',
  });
}

/** The workerd configuration: the Worker on `port`, `nodejs_compat`, outbound fetches allowed to loopback (the emulator). */
function workerdConfig(port: number, stripeApiBase: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [
    (name = "STRIPE_API_BASE", text = ${JSON.stringify(stripeApiBase)}),
    (name = "STRIPE_WEBHOOK_SECRET", text = ${JSON.stringify(WORKER_WEBHOOK_SECRET)}),
  ],
);
`;
}

/** Resolves once `url` answers, or rejects after `ms` (with what workerd printed). */
async function answering(url: string, ms: number, output: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`workerd did not answer at ${url} within ${ms} ms:\n${output()}`);
}

const binary = workerdBinary();

/** The Worker's webhook signing secret (its STRIPE_WEBHOOK_SECRET binding). */
const WORKER_WEBHOOK_SECRET = 'whsec_workerdtest0123456789';

describe.runIf(binary !== undefined)('credit402Handler in a Worker run by workerd', () => {
  let dir = '';
  let emulator: RunningEmulator | undefined;
  let workerd: ChildProcess | undefined;
  let url = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'credit402-workerd-'));
    emulator = await startEmulator();
    await bundleWorker(join(dir, 'worker.js'));
    const port = await freePort();
    writeFileSync(join(dir, 'config.capnp'), workerdConfig(port, emulator.url));
    let output = '';
    workerd = spawn(binary as string, ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'pipe', 'pipe'] });
    workerd.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    workerd.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    url = `http://127.0.0.1:${port}`;
    await answering(url, 15_000, () => output);
  }, 60_000);

  afterAll(async () => {
    workerd?.kill('SIGTERM');
    await emulator?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers 402 with the challenge, then serves a request paid by card at the emulator, then one spent from the balance', async () => {
    const challenge = await fetch(`${url}/api/weather`);
    expect(challenge.status).toBe(402);
    const required = decodeBase64Json(challenge.headers.get('payment-required') ?? '');
    expect(required.ok && required.value).toMatchObject({ resource: { url: '/api/weather' }, accepts: [{ amount: 500, minTopUp: 50_000 }] });

    const { paymentMethodId } = await createPaymentMethod((emulator as RunningEmulator).url, { publishable: 'pk_test_workerd', secret: 'sk_test_workerd' }, uniqueCardNumber());
    const paid = await fetch(`${url}/api/weather`, { headers: { payment: encodeBase64Json({ paymentMethodId }) } });
    expect(paid.status).toBe(200);
    const receipt = decodeBase64Json(paid.headers.get('payment-response') ?? '');
    expect(receipt.ok && receipt.value).toMatchObject({ success: true, creditsRemaining: 49_500, chargeId: expect.stringMatching(/^pi_/) });
    expect(await paid.json()).toEqual({ temperature: 21, creditsRemaining: 49_500 });

    const clientId = receipt.ok ? (receipt.value as { clientId: string }).clientId : '';
    const spent = await fetch(`${url}/api/weather`, { headers: { payment: encodeBase64Json({ clientId }) } });
    expect(spent.status).toBe(200);
    expect(await spent.json()).toEqual({ temperature: 21, creditsRemaining: 49_000 });

    const free = await fetch(`${url}/free`);
    expect(free.status).toBe(200);
    expect(free.headers.get('payment-response')).toBeNull();
  });

  it('verifies webhook signatures with Web Crypto: a forged delivery is refused 400, a signed one is verified and acted on as Stripe says', async () => {
    const event = JSON.stringify({ id: 'evt_workerd_1', object: 'event', type: 'payment_intent.succeeded', created: Math.floor(Date.now() / 1000), data: { object: { id: 'pi_unknown_to_stripe', object: 'payment_intent' } } });
    const deliver = (signature: string) => fetch(`${url}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: event });
    const forged = await deliver(signPayload(event, 'whsec_someoneelse000000000000'));
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: expect.stringMatching(/^Webhook signature rejected/) });
    // Signed: verified, then the PaymentIntent is retrieved from Stripe, which has none of that id: nothing to apply.
    const signed = await deliver(signPayload(event, WORKER_WEBHOOK_SECRET));
    expect(signed.status).toBe(200);
    expect(await signed.json()).toEqual({ received: true, eventId: 'evt_workerd_1', action: 'ignored' });
  });
});
