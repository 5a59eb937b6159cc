// One fault-load run on one store: the reference server behind a faulty link to Redis or PostgreSQL, paid for by retrying clients, then judged.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmulatorControl, startEmulator } from 'credit402-stripe-emulator';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { Random } from '../crash-test/random.ts';
import { redeliverPending } from '../crash-test/recovery.ts';
import { deriveClientId } from 'credit402/protocol';
import { buildStore } from 'credit402/internal/compose/build-store';
import { loadServerConfig, startReferenceServer, type StoreConfig } from 'credit402/server';
import { provisionStore, storeFixtureKinds } from '../testing/store-fixtures.ts';
import { FaultyLink, type LinkFaults } from './faulty-link.ts';
import { checkMoney, type MoneyVerdict } from './money-check.ts';
import { newOperation, runOperation, type LoadClient, type Operation } from './workload.ts';

/** The stores the fault load runs on: those reached over a network link. */
export const FAULT_LOAD_STORES: readonly string[] = storeFixtureKinds((fixture) => fixture.network);

/** How long and how hard one run loads its store. */
export interface FaultLoadOptions {
  seconds: number;
  workers: number;
  seed: number;
}

/** What one run did and found. */
export interface FaultLoadReport {
  store: string;
  framework: 'fastify' | 'express';
  operations: number;
  firstPayments: number;
  attempts: number;
  cut: number;
  unavailable: number;
  answered: Record<string, number>;
  faults: LinkFaults;
  verdict: MoneyVerdict;
  wallMs: number;
}

const KEYS = { publishable: 'pk_test_credit402faultload', secret: 'sk_test_credit402faultload' };
const WEATHER = 'GET /api/weather';
const TRANSLATE = 'POST /api/translate';
/**
 * A route whose handler fails the first attempt of each request (`answer500IfMarked`): with `refundOnHandlerError` its
 * deduction is given back while the client retries the same request id, so a refund retried under the faults races
 * the retry served as the repeat (CR-6.9).
 */
const FLAKY = 'GET /api/flaky';
/** The demo routes of the load: the default configuration's and the flaky one. */
const ROUTES = {
  [WEATHER]: { amount: 500, description: 'Weather lookup' },
  [TRANSLATE]: { amount: 2500, currency: 'eur', minTopUp: 100000, description: 'Translation' },
  [FLAKY]: { amount: 700, description: 'A handler that fails the first attempt' },
};
/** Attempts an operation may take before it counts as never answered (each retried cut or 503 is one). */
const MAX_ATTEMPTS = 200;
/** Operations of one run at most: the server's handled route remembers the last 10000 request ids. */
const MAX_OPERATIONS = 8_000;

/** The store behind the link: a fresh one of a kind reached over TCP, whose fixture says where it listens and how to reach it through the link. */
async function prepareStore(kind: string): Promise<{ target: { host: string; port: number }; through(port: number): StoreConfig; direct: StoreConfig; release(): Promise<void> }> {
  const provisioned = await provisionStore(kind);
  const { network } = provisioned;
  if (network === undefined) {
    await provisioned.release();
    throw new Error(`the fault load needs a store reached over TCP; ${kind} is not`);
  }
  return { target: { host: network.host, port: network.port }, through: network.through, direct: provisioned.config, release: () => provisioned.release() };
}

/** A new card's client: its id as the server derives it (HMAC of the fingerprint, CR-10.1) and a first payment method. */
async function newClient(emulatorUrl: string, serverSecret: string): Promise<{ client: LoadClient; paymentMethodId: string }> {
  const cardNumber = uniqueCardNumber();
  const method = await createPaymentMethod(emulatorUrl, KEYS, cardNumber);
  return { client: { clientId: deriveClientId(method.fingerprint, serverSecret), cardNumber }, paymentMethodId: method.paymentMethodId };
}

/** Arms one random fault on the link every 20–150 ms until `stopped()`: held requests or replies (often past the store bound), cuts, lost replies, stalls. */
async function injectFaults(link: FaultyLink, rng: Random, stopped: () => boolean): Promise<void> {
  const choose = (n: number): number => rng.int(0, n - 1);
  while (!stopped()) {
    await sleep(rng.int(20, 150));
    const roll = rng.next();
    if (roll < 0.25) link.hold('down', rng.int(50, 1_500), choose);
    else if (roll < 0.5) link.hold('up', rng.int(50, 1_500), choose);
    else if (roll < 0.65) link.cut(choose);
    else if (roll < 0.8) link.loseReplies(rng.int(100, 800), choose);
    else if (roll < 0.85) link.stall(rng.int(200, 1_500));
  }
}

/** Runs the fault load on `kind` for `options.seconds`, then lets every operation finish with the faults off and judges the money. */
export async function runFaultLoad(kind: string, options: FaultLoadOptions, log: (line: string) => void): Promise<FaultLoadReport> {
  const started = Date.now();
  const rng = new Random(options.seed);
  const store = await prepareStore(kind);
  const link = new FaultyLink(store.target);
  const emulator = await startEmulator({ port: 0 });
  // Whatever started is stopped, in reverse order, however the run ends.
  const stops: Array<() => Promise<unknown>> = [() => store.release(), () => emulator.close(), () => link.close()];
  try {
    await link.start();
    const control = new EmulatorControl(emulator.controlUrl);
    const secret = `whsec_${randomBytes(16).toString('hex')}`;
    // One store on each framework in every run, which one by the seed.
    const framework = (options.seed + FAULT_LOAD_STORES.indexOf(kind)) % 2 === 0 ? 'fastify' : 'express';
    const config = loadServerConfig({
      overrides: {
        host: '127.0.0.1', port: await freePort(), framework, stripeApi: emulator.url, store: store.through(link.port), stripeWebhookSecret: secret,
        conformanceControl: true, newPaymentRateLimit: false, stripeSecretKey: KEYS.secret, stripePublishableKey: KEYS.publishable,
        routes: ROUTES, failingHandlers: { [FLAKY]: 'answer500IfMarked' }, refundOnHandlerError: true,
      },
    });
    const server = await startReferenceServer(config);
    stops.push(() => server.close());
    const reader = await buildStore(store.direct);
    stops.push(() => reader.close());
    const ops: Operation[] = [];
    await control.registerWebhook(server.webhookUrl ?? '', secret);
    const base = new URL(server.url);
    // Funded clients, paid for with the faults off: a balance in dollars (the weather route) and one in euros (translate).
    const clients: LoadClient[] = [];
    for (let i = 0; i < 12; i++) {
      const { client, paymentMethodId } = await newClient(emulator.url, config.serverSecret);
      const euros = await createPaymentMethod(emulator.url, KEYS, client.cardNumber);
      clients.push(client);
      ops.push(newOperation(WEATHER, client, { paymentMethodId, topUpAmount: 1_000_000 }));
      ops.push(newOperation(TRANSLATE, client, { paymentMethodId: euros.paymentMethodId, topUpAmount: 1_000_000 }));
    }
    await Promise.all(ops.map((op) => runOperation(op, base, rng, MAX_ATTEMPTS)));
    log(`  ${kind} (${framework}): ${clients.length} clients funded; faults on for ${options.seconds} s`);
    const deadline = Date.now() + options.seconds * 1_000;
    const stopped = (): boolean => Date.now() >= deadline;
    const faults = injectFaults(link, rng, stopped);
    const worker = async (): Promise<void> => {
      while (!stopped() && ops.length < MAX_OPERATIONS) {
        const op = await nextOperation(rng, clients, emulator.url, config.serverSecret);
        ops.push(op);
        await runOperation(op, base, rng, MAX_ATTEMPTS);
      }
    };
    await Promise.all([faults, ...Array.from({ length: options.workers }, worker)]);
    const { events, redelivered } = await redeliverPending(control);
    log(`  ${kind}: faults off, every operation answered for good; ${redelivered} webhook events redelivered`);
    const verdict = await checkMoney(reader, base, ops, events);
    return report(kind, framework, ops, link.faults, verdict, started);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** The next operation: mostly spends of a funded balance; a first payment of a new card or a top-up of a known one now and then. */
async function nextOperation(rng: Random, clients: LoadClient[], emulatorUrl: string, serverSecret: string): Promise<Operation> {
  const roll = rng.next();
  if (roll < 0.08) {
    const { client, paymentMethodId } = await newClient(emulatorUrl, serverSecret);
    return newOperation(WEATHER, client, { paymentMethodId });
  }
  const client = rng.pick(clients);
  if (roll < 0.14) {
    const method = await createPaymentMethod(emulatorUrl, KEYS, client.cardNumber);
    return newOperation(WEATHER, client, { paymentMethodId: method.paymentMethodId, topUpAmount: 60_000 });
  }
  if (roll < 0.3) return newOperation(TRANSLATE, client, { clientId: client.clientId });
  if (roll < 0.45) return newOperation(FLAKY, client, { clientId: client.clientId }, true);
  return newOperation(WEATHER, client, { clientId: client.clientId });
}

function report(store: string, framework: 'fastify' | 'express', ops: readonly Operation[], faults: LinkFaults, verdict: MoneyVerdict, started: number): FaultLoadReport {
  const answered: Record<string, number> = {};
  for (const op of ops) {
    const key = op.final === undefined ? 'none' : [op.final.status, op.final.errorCode].filter((part) => part !== undefined).join(' ');
    answered[key] = (answered[key] ?? 0) + 1;
  }
  const sum = (pick: (op: Operation) => number): number => ops.reduce((total, op) => total + pick(op), 0);
  return {
    store, framework, operations: ops.length, firstPayments: ops.filter((op) => op.paymentMethodId !== undefined).length,
    attempts: sum((op) => op.attempts), cut: sum((op) => op.cut), unavailable: sum((op) => op.unavailable), answered, faults, verdict, wallMs: Date.now() - started,
  };
}
