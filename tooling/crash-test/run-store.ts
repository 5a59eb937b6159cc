// One crash-test run on one store: a child server killed with SIGKILL at random points, restarted, then checked.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmulatorControl, startEmulator } from 'credit402-stripe-emulator';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { StripeProcessor } from 'credit402/stripe';
import { reconcile } from 'credit402';
import { buildStore } from 'credit402/internal/compose/build-store';
import { loadServerConfig } from 'credit402/server';
import { createCardPaymentMethod, uniqueCardNumber } from '../testing/test-cards.ts';
import { provisionStore, storeFixtureKinds } from '../testing/store-fixtures.ts';
import { checkInvariants, type Violation } from './invariants.ts';
import { ledgerFromEvents } from './ledger.ts';
import { Random } from './random.ts';
import { redeliverPending } from './recovery.ts';
import { ServerPool } from './server-pool.ts';
import { StripeProxy } from './stripe-proxy.ts';
import { newStats, randomBatch, run, type Card, type Operation, type TrafficStats } from './traffic.ts';

type KillMode = 'random' | 'after-charge' | 'delay-fault';

/** The stores the crash test can run on: those that outlive the server's process. */
export const CRASH_STORES: readonly string[] = storeFixtureKinds((fixture) => fixture.durable);

/** What one run did and found. */
export interface StoreReport {
  store: string;
  iterations: number;
  kills: Record<KillMode, number>;
  violations: Violation[];
  /** Iterations whose check found at least one violation. */
  failedIterations: number;
  /** Succeeded top-ups, and how many of them only a webhook (or redelivery) credited. */
  succeeded: number;
  creditedByWebhook: number;
  redelivered: number;
  /** Top-ups a final reconciliation dry run found uncredited (must be 0). */
  drift: number;
  traffic: TrafficStats;
  bundled: boolean;
  wallMs: number;
}

/** Runs `iterations` kill-and-recover cycles against `store`; `log` receives progress lines. */
export async function runCrashTest(kind: string, iterations: number, seed: number, log: (line: string) => void): Promise<StoreReport> {
  const started = Date.now();
  const rng = new Random(seed);
  const dir = mkdtempSync(join(tmpdir(), 'credit402-crash-'));
  const store = await provisionStore(kind).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const storeConfig = store.config;
  const emulator = await startEmulator({ port: 0 });
  const control = new EmulatorControl(emulator.controlUrl);
  const proxy = new StripeProxy(emulator.url);
  await proxy.start();
  const port = await freePort();
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const config = loadServerConfig({
    overrides: { host: '127.0.0.1', port, stripeApi: proxy.url, store: storeConfig, stripeWebhookSecret: secret, lockWaitMs: 500, lockTtlMs: 1_500, stripeTimeoutMs: 3_000 },
  });
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  await control.registerWebhook(`http://127.0.0.1:${port}/webhooks/stripe`, secret);
  const frameworks = new Random(seed ^ 0x5eed); // spares are spawned in the background: their own stream keeps `rng` replayable
  const pool = new ServerPool(configPath, () => frameworks.pick(['fastify', 'express'] as const));
  const reader = await buildStore(storeConfig);
  const report: StoreReport = {
    store: kind, iterations: 0, kills: { random: 0, 'after-charge': 0, 'delay-fault': 0 }, violations: [], failedIterations: 0, succeeded: 0,
    creditedByWebhook: 0, redelivered: 0, drift: 0, traffic: newStats(), bundled: false, wallMs: 0,
  };
  try {
    await pool.init();
    report.bundled = pool.bundled;
    const cards: Card[] = [];
    for (let i = 0; i < 8; i++) {
      const number = uniqueCardNumber();
      cards.push({ number, paymentMethods: [await createCardPaymentMethod(emulator.url, number), await createCardPaymentMethod(emulator.url, number)] });
    }
    let serverUrl = await pool.start();
    let retries: Operation[] = [];
    let ledger = ledgerFromEvents([]);
    for (let i = 1; i <= iterations; i++) {
      const mode = rng.pick<KillMode>(['random', 'random', 'after-charge', 'delay-fault']);
      if (mode === 'delay-fault') {
        await control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind: 'delay', delayMs: rng.int(30, 250), count: rng.int(1, 3) });
      }
      let killed: Promise<void> | undefined;
      let kill: KillMode = mode === 'after-charge' ? 'random' : mode; // 'after-charge' only once the hook fired
      let onKill = (): void => {};
      const killSignal = new Promise<void>((resolve) => (onKill = resolve));
      const batch = [...retries.filter(() => rng.chance(0.6)), ...randomBatch(rng, cards, ledger)];
      if (mode === 'after-charge') {
        // A first payment of a new card always charges, so the kill lands between that charge and its credit.
        const number = uniqueCardNumber();
        const card = { number, paymentMethods: [await createCardPaymentMethod(emulator.url, number)] };
        cards.push(card);
        batch.push({ kind: 'request', route: 'GET /api/weather', payment: { paymentMethodId: card.paymentMethods[0] } });
        proxy.armKillAfterCharge(() => {
          killed = pool.kill();
          kill = 'after-charge';
          onKill();
          return killed;
        });
      }
      const running = batch.map((op) => run(op, serverUrl, control, report.traffic));
      await (mode === 'after-charge' ? Promise.race([killSignal, sleep(2_000)]) : sleep(rng.int(0, rng.chance(0.5) ? 60 : 300)));
      proxy.disarm();
      await (killed ?? pool.kill());
      report.kills[kill]++;
      retries = (await Promise.all(running)).filter((op): op is Operation => op !== undefined);
      await proxy.idle();
      await control.clearFaults();
      serverUrl = await pool.start();
      const { events, redelivered } = await redeliverPending(control);
      report.redelivered += redelivered;
      ledger = ledgerFromEvents(events);
      const found = await checkInvariants(reader, ledger);
      for (const violation of found) report.violations.push(`iteration ${i}: ${violation}`);
      if (found.length > 0) report.failedIterations++;
      report.iterations = i;
      if (i % 25 === 0 || found.length > 0) log(`  ${kind}: ${i}/${iterations} kills, ${report.violations.length} violations, ${ledger.size} top-ups`);
    }
    report.succeeded = ledger.size;
    report.creditedByWebhook = [...ledger.keys()].filter((id) => !report.traffic.chargedInAnswer.has(id)).length;
    const processor = new StripeProcessor({ secretKey: config.stripeSecretKey, api: { host: '127.0.0.1', port: emulator.port, protocol: 'http' } });
    report.drift = (await reconcile({ processor, store: reader, dryRun: true })).credited.length;
  } finally {
    await pool.close();
    await reader.close();
    await proxy.close();
    await emulator.close();
    await store.release();
    rmSync(dir, { recursive: true, force: true });
  }
  report.wallMs = Date.now() - started;
  return report;
}

