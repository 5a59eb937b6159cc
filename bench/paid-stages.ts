// Where a paid request's CPU goes on the memory store, stage by stage, in one process (no sockets): CPU µs per paid
// request of variants that each add one stage, measured side by side in interleaved rounds
// (`tsx --conditions=credit402-source bench/paid-stages.ts [requests per round] [rounds]`; the bench runs it in a child).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import { createGate, type Gate } from '../reference/gate/index.ts';
import { encodeBase64Json } from '../reference/protocol/base64-json.ts';
import { demoRoutes } from '../reference/server/demo-routes.ts';
import { buildFastifyApp } from '../reference/server/fastify-app.ts';
import { MemoryStore } from '../reference/stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { fastifyFloor } from './floors/fastify-floor.ts';
import { memoryBalances } from './floors/memory-balances.ts';
import { median, round } from './stats.ts';

const CLIENT_ID = 'a'.repeat(64);
const BALANCE = 9_000_000_000;
const ROUTE = '/api/nodesc';
const ROUTES = { 'GET /api/nodesc': { amount: 1 } };
const PAYMENT_HEADER = Buffer.from(JSON.stringify({ clientId: CLIENT_ID })).toString('base64');
/** Requests in flight at once, as 50 connections would have them. */
const IN_FLIGHT = 50;

/** The stages, each the difference of two variants measured in the same rounds. */
export const STAGES = {
  engine: 'engine alone: gate.handle + settle as plain functions',
  record: 'of which the transaction record (gate.handle with a store keeping a log − without)',
  header: 'of which the payment-response header (encodeBase64Json of the PaymentResponse)',
  engineInRoute: 'engine in a bare Fastify route (route calling gate.handle − the floor route, inject)',
  hooks: 'adapter hooks and the reference app (reference app − the bare route calling gate.handle, inject)',
} as const;

/** One stage's CPU µs per paid request (median over the rounds of the paired difference). */
export interface StageCost {
  stage: string;
  cpuUs: number;
}

/** The variants' raw CPU µs per paid request and the stages derived from them. */
export interface PaidStages {
  variants: Record<string, number>;
  stages: StageCost[];
}

async function fundedGate(recordTransactions: boolean): Promise<Gate> {
  const store = new MemoryStore({ recordTransactions });
  await store.addBalance(CLIENT_ID, 'usd', BALANCE);
  return createGate({ stripePublishableKey: 'pk_test_x', serverSecret: 'x'.repeat(32), store, processor: new FakeProcessor(), routes: ROUTES });
}

/** A bare Fastify route that asks the gate and applies its decision itself: the engine without the plugin's hooks. */
function engineRoute(gate: Gate): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get(ROUTE, async (request, reply) => {
    const decision = await gate.handle({ method: 'GET', url: request.url, paymentHeader: request.headers.payment });
    if (decision.action !== 'serve') return reply.code(decision.action === 'respond' ? decision.status : 500).send(decision.action === 'respond' ? decision.body : {});
    reply.headers(decision.headers);
    reply.raw.once('finish', () => void decision.settle({ status: reply.statusCode }));
    return { route: `GET ${ROUTE}`, gated: true, creditsRemaining: decision.payment.creditsRemaining };
  });
  return app;
}

/** `n` calls of `one`, {@link IN_FLIGHT} at a time; resolves to CPU µs (user + system) per call. */
async function cpuPerCall(n: number, one: () => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage();
  for (let done = 0; done < n; done += IN_FLIGHT) await Promise.all(Array.from({ length: IN_FLIGHT }, one));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / n;
}

/** Paid `GET /api/nodesc` through `app.inject`, checked to be served. */
function injectPaid(app: FastifyInstance): () => Promise<void> {
  return async () => {
    const response = await app.inject({ method: 'GET', url: ROUTE, headers: { payment: PAYMENT_HEADER } });
    if (response.statusCode !== 200) throw new Error(`paid request answered ${response.statusCode}: ${response.body}`);
  };
}

/** The variants, by name: each a paid request of one kind. */
async function variants(): Promise<Array<{ name: string; one: () => Promise<unknown>; close(): Promise<void> }>> {
  const engine = await fundedGate(true);
  const engineNoLog = await fundedGate(false);
  const request = { method: 'GET', url: ROUTE, paymentHeader: PAYMENT_HEADER };
  const handle = (gate: Gate) => async () => {
    const decision = await gate.handle(request);
    if (decision.action !== 'serve') throw new Error(`the gate decided ${decision.action}`);
    await decision.settle({ status: 200 });
  };
  const payment = { success: true, creditsRemaining: BALANCE, clientId: CLIENT_ID };
  const balances = memoryBalances();
  await balances.fund(CLIENT_ID, BALANCE);
  const floor = fastifyFloor(balances);
  const routed = engineRoute(await fundedGate(true));
  const referenceGate = await fundedGate(true);
  const reference = await buildFastifyApp(referenceGate, demoRoutes(Object.keys(ROUTES), ['GET /free']), { handled: false });
  for (const app of [floor, routed, reference]) await app.ready();
  const none = async (): Promise<void> => {};
  return [
    { name: 'engine', one: handle(engine), close: none },
    { name: 'engine without a log', one: handle(engineNoLog), close: none },
    { name: 'header', one: async () => encodeBase64Json(payment), close: none },
    { name: 'floor (inject)', one: injectPaid(floor), close: () => floor.close() },
    { name: 'engine in a bare route (inject)', one: injectPaid(routed), close: () => routed.close() },
    { name: 'reference app (inject)', one: injectPaid(reference), close: () => reference.close() },
  ];
}

/** Median over the rounds of `a − b` of the same round. */
function pairedDifference(samples: ReadonlyMap<string, readonly number[]>, a: string, b?: string): number {
  const first = samples.get(a) ?? [];
  const second = b === undefined ? undefined : (samples.get(b) ?? []);
  return round(median(first.map((value, index) => value - (second?.[index] ?? 0))), 2);
}

/** The stages from the variants' samples (µs per paid request, by variant name, one sample per round). */
export function stagesOf(samples: ReadonlyMap<string, readonly number[]>): PaidStages {
  return {
    variants: Object.fromEntries([...samples].map(([name, values]) => [name, round(median([...values]), 2)])),
    stages: [
      { stage: STAGES.engine, cpuUs: pairedDifference(samples, 'engine') },
      { stage: STAGES.record, cpuUs: pairedDifference(samples, 'engine', 'engine without a log') },
      { stage: STAGES.header, cpuUs: pairedDifference(samples, 'header') },
      { stage: STAGES.engineInRoute, cpuUs: pairedDifference(samples, 'engine in a bare route (inject)', 'floor (inject)') },
      { stage: STAGES.hooks, cpuUs: pairedDifference(samples, 'reference app (inject)', 'engine in a bare route (inject)') },
    ],
  };
}

/** Measures every variant in `rounds` interleaved rounds (A B C, then C B A, …) of `n` paid requests. */
export async function measurePaidStages(n: number, rounds: number): Promise<PaidStages> {
  const list = await variants();
  try {
    for (const variant of list) await cpuPerCall(Math.max(2000, n), variant.one);
    const samples = new Map<string, number[]>(list.map(({ name }) => [name, []]));
    for (let index = 0; index < rounds; index++) {
      for (const variant of index % 2 === 0 ? list : [...list].reverse()) samples.get(variant.name)?.push(await cpuPerCall(n, variant.one));
    }
    return stagesOf(samples);
  } finally {
    await Promise.all(list.map((variant) => variant.close()));
  }
}

/** {@link measurePaidStages} in a child process of its own (a fresh heap, away from the load generator's garbage). */
export async function measurePaidStagesInChild(n: number, rounds: number): Promise<PaidStages> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=credit402-source', '--import', 'tsx', fileURLToPath(import.meta.url), String(n), String(rounds), '--json'],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 600_000 },
  );
  return JSON.parse(stdout) as PaidStages;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await measurePaidStages(Number(process.argv[2] ?? 5000), Number(process.argv[3] ?? 11));
  if (process.argv.includes('--json')) console.log(JSON.stringify(result));
  else {
    for (const [name, cpuUs] of Object.entries(result.variants)) console.log(`${name.padEnd(40)} ${cpuUs.toFixed(2)} µs CPU per paid request`);
    for (const { stage, cpuUs } of result.stages) console.log(`${cpuUs.toFixed(2).padStart(8)} µs  ${stage}`);
  }
}
