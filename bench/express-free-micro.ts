// Micro-benchmark of a free (ungated) request through Express, no sockets: CPU µs per `GET /free` handed to the app
// as node:http would, for bare Express, the same app behind a no-op middleware (Express's own cost of one layer) and
// behind each credit402 form, and the reference server's two apps
// (`tsx --conditions=credit402-source bench/express-free-micro.ts [N per round] [rounds]`). Interleaved rounds; medians.
import { execFile } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express, { type Express } from 'express';
import { credit402Express, credit402Middleware } from '../reference/adapters/express/express.ts';
import { trackInFlight } from '../reference/compose/in-flight.ts';
import { createGate, type Gate } from '../reference/gate/index.ts';
import { demoRoutes } from '../reference/server/demo-routes.ts';
import { buildExpressApp } from '../reference/server/express-app.ts';
import { buildExpressPerRouteApp } from '../reference/server/express-per-route.ts';
import { MemoryStore } from '../reference/stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';
import { median, round } from './stats.ts';

/** The reference server's default routes (reference/compose/default-config.json). */
const ROUTES = {
  'GET /api/weather': { amount: 500, description: 'Weather lookup' },
  'POST /api/translate': { amount: 2500, currency: 'eur', minTopUp: 100000, description: 'Translation' },
  'GET /api/nodesc': { amount: 1 },
};
const FREE_ROUTES = ['GET /free', 'POST /api/weather'];

function gateOf(routes: Record<string, { amount: number }>): Gate {
  return trackInFlight(createGate({ stripePublishableKey: 'pk_test_x', serverSecret: 'x'.repeat(32), store: new MemoryStore(), processor: new FakeProcessor(), routes })).gate;
}

/** Bare Express with the reference app's settings and one free route answering the demo body; `before` mounted first. */
function bareApp(before?: (req: never, res: never, next: () => void) => unknown): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  if (before) app.use(before as express.RequestHandler);
  app.get('/free', (_req, res) => void res.json({ route: 'GET /free', gated: false }));
  return app;
}

/** The names of the apps compared, in the order measured; the first is bare Express. */
export const FREE_APPS = {
  bare: 'bare Express',
  noop: 'bare + a no-op middleware',
  table: 'bare + credit402Middleware (table)',
  guard: 'bare + targetGuard (per route)',
  referenceTable: 'reference app (table)',
  referencePerRoute: 'reference app (per route)',
} as const;

/** One app's CPU per free request, and what it adds over bare Express measured in the same rounds. */
export interface FreeAppCost {
  name: string;
  cpuUs: number;
  /** Median over the rounds of this app's µs minus bare Express's of the same round. */
  addedUs: number;
}

/** The apps compared, by name. */
function freeApps(): Array<{ name: string; app: Express }> {
  const table = gateOf(ROUTES);
  const perRoute = gateOf({});
  return [
    { name: FREE_APPS.bare, app: bareApp() },
    { name: FREE_APPS.noop, app: bareApp((_req, _res, next) => next()) },
    { name: FREE_APPS.table, app: bareApp(credit402Middleware(table) as never) },
    { name: FREE_APPS.guard, app: bareApp(credit402Express(perRoute).targetGuard() as never) },
    { name: FREE_APPS.referenceTable, app: buildExpressApp(table, demoRoutes(Object.keys(ROUTES), FREE_ROUTES), { handled: false }) },
    { name: FREE_APPS.referencePerRoute, app: buildExpressPerRouteApp(perRoute, demoRoutes(Object.keys(ROUTES), FREE_ROUTES), ROUTES, { handled: false }) },
  ];
}

/** One request handed to `app` as node:http would: a request on a socket that writes nowhere, the response on it. */
function requestOnce(app: Express, socket: Socket, done: () => void): void {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = '/free';
  req.headers = { host: '127.0.0.1', 'user-agent': 'bench', accept: '*/*' };
  req.rawHeaders = ['host', '127.0.0.1', 'user-agent', 'bench', 'accept', '*/*'];
  req.complete = true;
  req.push(null);
  const res = new ServerResponse(req);
  res.end = ((end) => function (this: ServerResponse, ...args: unknown[]) {
    done();
    return end.apply(this, args as never);
  })(res.end);
  app(req, res);
}

/** Runs `n` free requests through `app`, 50 in flight; resolves to CPU µs (user + system) per request. */
async function run(app: Express, n: number): Promise<number> {
  const socket = new Socket();
  const started = process.cpuUsage();
  for (let sent = 0; sent < n; sent += 50) {
    await new Promise<void>((resolve) => {
      let left = 50;
      for (let i = 0; i < 50; i++) requestOnce(app, socket, () => void (--left === 0 && setImmediate(resolve)));
    });
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / n;
}

/** The middleware alone, called directly on a free request `n` times (no Express): CPU µs per call, its own code only. */
function directCall(middleware: (req: never, res: never, next: () => void) => unknown, n: number): number {
  const req = { method: 'GET', url: '/free', headers: {}, baseUrl: '' };
  const res = { locals: {} };
  let passed = 0;
  const next = (): void => {
    passed++;
  };
  const started = process.cpuUsage();
  for (let i = 0; i < n; i++) middleware(req as never, res as never, next);
  const used = process.cpuUsage(started);
  if (passed !== n) throw new Error(`the middleware passed ${passed} of ${n} free requests synchronously`);
  return (used.user + used.system) / n;
}

/** CPU µs per free request of each credit402 form's middleware called directly (median of `rounds`). */
export function measureDirectCalls(n: number, rounds: number): FreeAppCost[] {
  const forms = [
    { name: 'credit402Middleware alone (direct call, no Express)', middleware: credit402Middleware(gateOf(ROUTES)) },
    { name: 'targetGuard alone (direct call, no Express)', middleware: credit402Express(gateOf({})).targetGuard() },
  ];
  for (const form of forms) directCall(form.middleware as never, n);
  return forms.map((form) => {
    const cpuUs = round(median(Array.from({ length: rounds }, () => directCall(form.middleware as never, n))), 3);
    return { name: form.name, cpuUs, addedUs: cpuUs };
  });
}

/** CPU µs per free request of each app: medians over `rounds` interleaved rounds (A B C, then C B A, …) of `n` requests. */
export async function measureFreeApps(n: number, rounds: number): Promise<FreeAppCost[]> {
  const apps = freeApps();
  // Warm-up: every app compiled and its shapes settled before the first round.
  for (const { app } of apps) await run(app, Math.max(2000, n));
  const samples = new Map<string, number[]>(apps.map(({ name }) => [name, []]));
  for (let index = 0; index < rounds; index++) {
    for (const { name, app } of index % 2 === 0 ? apps : [...apps].reverse()) samples.get(name)?.push(await run(app, n));
  }
  return [...freeAppCosts(samples, FREE_APPS.bare), ...measureDirectCalls(n * 20, rounds)];
}

/** Each app's median µs and its median paired difference to `bare`'s sample of the same round. */
export function freeAppCosts(samples: ReadonlyMap<string, readonly number[]>, bare: string): FreeAppCost[] {
  const base = samples.get(bare) ?? [];
  return [...samples].map(([name, values]) => ({
    name,
    cpuUs: round(median([...values]), 2),
    addedUs: round(median(values.map((value, index) => value - (base[index] ?? Number.NaN))), 2),
  }));
}

/**
 * Runs the measurement in a child process of its own (a fresh heap: the bench process's load generator would add its
 * garbage collections to every app alike, but unevenly); resolves to what it printed as JSON.
 */
export async function measureFreeAppsInChild(n: number, rounds: number): Promise<FreeAppCost[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=credit402-source', '--import', 'tsx', fileURLToPath(import.meta.url), String(n), String(rounds), '--json'],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 600_000 },
  );
  return JSON.parse(stdout) as FreeAppCost[];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const costs = await measureFreeApps(Number(process.argv[2] ?? 5000), Number(process.argv[3] ?? 15));
  if (process.argv.includes('--json')) console.log(JSON.stringify(costs));
  else for (const { name, cpuUs, addedUs } of costs) console.log(`${name.padEnd(40)} ${cpuUs.toFixed(2)} µs CPU per free request (${addedUs >= 0 ? '+' : ''}${addedUs.toFixed(2)})`);
}
