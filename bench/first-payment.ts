// The first-payment path (a new card per request) against the processor round trips it is bounded by.
import Stripe from 'stripe';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { deriveClientId } from '../reference/protocol/identity.ts';
import { StripeProcessor } from '../reference/processor/stripe-processor.ts';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import type { BenchChild } from './child-process.ts';
import { payGated } from './payment.ts';
import { runPool, type PoolTiming } from './pool.ts';
import { percentile, round } from './stats.ts';

/** Throughput and latency (ms) of one batch of payments, and the CPU it cost each process per payment (ms). */
export interface PaymentRate {
  count: number;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
  firstFailure?: string;
  /** CPU ms per payment of the process that ran the gate or the Stripe SDK (server child, or the bench itself). */
  callerCpuMs: number;
  /** CPU ms per payment of the emulator process. */
  emulatorCpuMs: number;
}

/** The three batches, measured on one emulator. */
export interface FirstPaymentResult {
  config: string;
  /** Through the reference server: 402 path with a new card, charge, credit, deduct. */
  throughGate: PaymentRate;
  /** The processor's calls alone (fingerprint, customer search and create, PaymentIntent), no gate, no store. */
  processorAlone: PaymentRate;
  /** One PaymentIntent creation (confirm) straight to the emulator per payment. */
  emulatorPaymentIntent: PaymentRate;
  /** Stripe API requests per payment through the gate, counted in the emulator's journal. */
  stripeCallsPerPayment: number;
}

const SECRET_KEY = 'sk_test_credit402bench';
const WARM_UP_PAYMENTS = 20;
const SERVER_SECRET = 'credit402-bench-server-secret-0123456789abcdef';

/** CPU time (µs) of the process doing the payments and of the emulator. */
type CpuReader = () => Promise<{ caller: number; emulator: number }>;

async function timed(read: CpuReader, batch: () => Promise<PoolTiming>): Promise<PoolTiming & { callerMs: number; emulatorMs: number }> {
  const before = await read();
  const timing = await batch();
  const after = await read();
  return { ...timing, callerMs: (after.caller - before.caller) / 1000, emulatorMs: (after.emulator - before.emulator) / 1000 };
}

function rate(timing: PoolTiming & { callerMs: number; emulatorMs: number }, count: number, concurrency: number): PaymentRate {
  const done = timing.latencies.length;
  const per = Math.max(1, done);
  return {
    count,
    concurrency,
    perSecond: round(done / timing.seconds, 1),
    p50: round(percentile(timing.latencies, 50), 2),
    p99: round(percentile(timing.latencies, 99), 2),
    failures: timing.failures.length,
    ...(timing.failures[0] === undefined ? {} : { firstFailure: timing.failures[0] }),
    callerCpuMs: round(timing.callerMs / per, 2),
    emulatorCpuMs: round(timing.emulatorMs / per, 2),
  };
}

async function newPaymentMethods(apiUrl: string, count: number, concurrency: number): Promise<string[]> {
  const ids: string[] = [];
  const timing = await runPool(count, concurrency, async (index) => {
    ids[index] = await createCardPaymentMethod(apiUrl);
  });
  if (timing.failures.length > 0) throw new Error(`could not create payment methods: ${timing.failures[0]}`);
  return ids;
}

function apiBase(url: string): { host: string; port: number; protocol: 'http' } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port), protocol: 'http' };
}

/** The two processes whose CPU time a batch is charged: the server (or the bench itself) and the emulator. */
interface PaymentProcesses {
  serverUrl: string;
  server: BenchChild<unknown>;
  emulator: BenchChild<{ url: string; controlUrl: string }>;
}

/** Measures `count` first payments through the server, then the processor and the emulator alone. */
export async function measureFirstPayments(config: string, processes: PaymentProcesses, count: number, concurrency: number): Promise<FirstPaymentResult> {
  const { serverUrl } = processes;
  const emulator = processes.emulator.ready;
  const control = new EmulatorControl(emulator.controlUrl);
  const viaServer: CpuReader = async () => {
    const [server, emu] = await Promise.all([processes.server.usage(), processes.emulator.usage()]);
    return { caller: server.cpuMicros, emulator: emu.cpuMicros };
  };
  const viaBench: CpuReader = async () => {
    const { user, system } = process.cpuUsage();
    return { caller: user + system, emulator: (await processes.emulator.usage()).cpuMicros };
  };
  const warm = Math.min(WARM_UP_PAYMENTS, count);
  const forGate = await newPaymentMethods(emulator.url, warm + count, concurrency);
  const forProcessor = await newPaymentMethods(emulator.url, warm + count, concurrency);
  const throughGate = (offset: number) => async (index: number): Promise<void> => {
    const paid = await payGated(serverUrl, { paymentMethodId: forGate[offset + index] });
    if (paid.chargeId === undefined) throw new Error('no charge on a first payment');
  };
  const processor = new StripeProcessor({ secretKey: SECRET_KEY, api: apiBase(emulator.url) });
  const processorAlone = (offset: number) => async (index: number): Promise<void> => {
    const paymentMethodId = forProcessor[offset + index] as string;
    const clientId = deriveClientId(await processor.getCardFingerprint(paymentMethodId), SERVER_SECRET);
    const customerId = await processor.findOrCreateCustomer(clientId, paymentMethodId);
    const charge = await processor.charge({
      amountCents: 500,
      currency: 'usd',
      paymentMethodId,
      customerId,
      description: 'credit402 bench',
      idempotencyKey: `credit402-bench-${clientId}`,
      metadata: { credit402_client_id: clientId },
    });
    if (!charge.succeeded) throw new Error(`charge ${charge.reason}`);
  };
  const stripe = new Stripe(SECRET_KEY, { ...apiBase(emulator.url), maxNetworkRetries: 0, telemetry: false });
  const paymentIntent = async (): Promise<void> => {
    const intent = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    });
    if (intent.status !== 'succeeded') throw new Error(`PaymentIntent ${intent.status}`);
  };

  // Untimed warm-up of every path (JIT, connection pools), so the batches compare steady states.
  await runPool(warm, concurrency, throughGate(0));
  await runPool(warm, concurrency, processorAlone(0));
  await runPool(warm, concurrency, paymentIntent);

  await control.clearJournal();
  const gate = await timed(viaServer, () => runPool(count, concurrency, throughGate(warm)));
  const stripeCalls = (await control.journal()).length;
  const alone = await timed(viaBench, () => runPool(count, concurrency, processorAlone(warm)));
  const direct = await timed(viaBench, () => runPool(count, concurrency, paymentIntent));

  return {
    config,
    throughGate: rate(gate, count, concurrency),
    processorAlone: rate(alone, count, concurrency),
    emulatorPaymentIntent: rate(direct, count, concurrency),
    stripeCallsPerPayment: round(stripeCalls / Math.max(1, gate.latencies.length), 2),
  };
}
