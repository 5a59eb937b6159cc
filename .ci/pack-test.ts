// `npm run pack-test` (part of `npm test`): packs the three packages and uses them from empty projects as a new user would, with plain Node.
// Checks: every export under ESM and require(), the published types (with every framework, and in Express-only and Fastify-only projects), source maps
// naming only shipped files, the kit against the library's server command, the kit's client mode, the emulator's command through the official stripe SDK, what a
// Fastify + Redis user installs, a toy adapter on the installed `credit402/gate`, `credit402 serve` in a project with Express only, and a store author's toy store through the
// conformance suite (`credit402/stores/conformance`, with vitest). Ends with `N passed, N failed`.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { dependencyClosure, type Lockfile } from './lockfile.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = { emulator: 'credit402-stripe-emulator', reference: 'credit402', harness: 'credit402-conformance' } as const;
/** Packages a user of the library with one framework and one store must not get. */
const DEV_ONLY = ['@cucumber/cucumber', 'fast-check', 'autocannon', 'tsx', 'typescript', 'vitest'];
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'credit402-pack-test-'));
const results: Array<{ name: string; ok: boolean; detail?: string }> = [];

async function check(name: string, body: () => Promise<string | undefined>): Promise<void> {
  const started = Date.now();
  try {
    const note = await body();
    results.push({ name, ok: true });
    console.log(`✓ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)${note ? `\n    ${note.replaceAll('\n', '\n    ')}` : ''}`);
  } catch (error) {
    const detail = error instanceof Error ? `${error.message}${'stdout' in error ? `\n${String(error.stdout).slice(-3000)}\n${String((error as { stderr?: unknown }).stderr).slice(-3000)}` : ''}` : String(error);
    results.push({ name, ok: false, detail });
    console.log(`✗ ${name}\n    ${detail.replaceAll('\n', '\n    ')}`);
  }
}

/** Runs a command to completion; rejects with its output when it fails. */
async function sh(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  const { stdout } = await run(command, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0' } });
  return stdout;
}

interface PackInfo {
  name: string;
  filename: string;
  unpackedSize: number;
  entryCount: number;
  files: Array<{ path: string }>;
}

/**
 * A new project in `work` with `installs` from npm (the registry's cache first) and the tarballs. No install scripts run:
 * the three packages have none, and a linked folder (the repository's better-sqlite3) must not be rebuilt in place.
 */
async function project(name: string, installs: string[]): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `pack-test-${name}`, private: true, type: 'module' }, null, 2));
  await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel', 'error', ...installs], dir, 600_000);
  return dir;
}

function lockfile(dir: string): Lockfile {
  return JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as Lockfile;
}

/** Entries that need a package only a store author installs (vitest, fast-check): loaded in that author's project. */
const AUTHOR_ONLY = ['credit402/stores/conformance'];

/** An export only the repository resolves (`credit402/internal/*`, for its test tooling): the `credit402-source` condition and nothing else, naming files the package does not ship. */
function sourceOnly(target: unknown): boolean {
  return typeof target === 'object' && target !== null && Object.keys(target).every((condition) => condition === 'credit402-source');
}

/** The script that imports every export of every package (those `include` keeps), under ESM and with require(). */
function importScript(packs: readonly PackInfo[], include: (specifier: string) => boolean = () => true): string {
  const specifiers = packs.flatMap((pack) => {
    const folder = Object.entries(PACKAGES).find(([, name]) => name === pack.name)?.[0] ?? '';
    const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    return Object.entries(manifest.exports).filter(([, target]) => !sourceOnly(target)).map(([key]) => `${pack.name}${key.slice(1)}`);
  }).filter(include);
  return `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const specifiers = ${JSON.stringify(specifiers)};
const lines = [];
for (const specifier of specifiers) {
  const json = specifier.endsWith('.json');
  const esm = json ? await import(specifier, { with: { type: 'json' } }) : await import(specifier);
  const cjs = require(specifier);
  const names = Object.keys(json ? esm.default : esm).length;
  if (names === 0 || Object.keys(cjs).length === 0) throw new Error(specifier + ' exports nothing');
  lines.push(specifier + ': ' + names + (json ? ' fields' : ' exports') + ', ESM and require()');
}
console.log(lines.join('\\n'));
`;
}

const CONSUMER = `// A user's TypeScript file, type-checked against the published declarations.
import Fastify from 'fastify';
import { createCredit402, credit402Fastify, Credit402ConfigError, type Gate } from 'credit402';
import { credit402Middleware } from 'credit402/express';
import { MemoryStore, type Store } from 'credit402/stores';
import { RedisStore } from 'credit402/stores/redis';
import { SqliteStore } from 'credit402/stores/sqlite';
import { createCredit402Fetch } from 'credit402/client';
import { startReferenceServer, loadServerConfig } from 'credit402/server';
import { startEmulator, EmulatorControl, type RunningEmulator } from 'credit402-stripe-emulator';
import { uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { runConformance, readProfile } from 'credit402-conformance';
import { validatePaymentRequired } from 'credit402-conformance/schemas';

const store: Store = new MemoryStore();
const gate: Gate = createCredit402({
  stripeSecretKey: 'sk_test_x',
  stripePublishableKey: 'pk_test_x',
  serverSecret: 'a-server-secret-of-at-least-32-characters',
  store,
  routes: { 'GET /api/weather': { amount: 500, description: 'Weather lookup' } },
});
const app = Fastify();
await app.register(credit402Fastify, { gate });
const middleware: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, next: (error?: unknown) => void) => void = credit402Middleware(gate);
const emulator: RunningEmulator = await startEmulator({ port: 0 });
const control = new EmulatorControl(emulator.controlUrl);
const paidFetch = createCredit402Fetch({ onPaymentRequired: async ({ accepts }) => ({ paymentMethodId: 'pm_card_visa', topUpAmount: accepts.minTopUp }) });
const card: string = uniqueCardNumber();
const port: number = await freePort();
const ok: boolean = validatePaymentRequired({}).ok;
const code: string = new Credit402ConfigError('ERR_ROUTES', 'x').code;
export { app, middleware, control, paidFetch, card, port, ok, code, RedisStore, SqliteStore, startReferenceServer, loadServerConfig, runConformance, readProfile };
`;

/** An Express-only user's file (express and @types/express installed, no fastify): the root entry and credit402/express, `res.locals.credit402` typed. */
const EXPRESS_CONSUMER = `// Type-checked in a project without fastify.
import express from 'express';
import { createCredit402, credit402Middleware, Credit402ConfigError, type Gate, type PaymentResponse } from 'credit402';
import { credit402Express } from 'credit402/express';
import { MemoryStore } from 'credit402/stores';
import { credit402WebhookMiddleware } from 'credit402/webhooks';
import { createCredit402Fetch } from 'credit402/client';
import { applyCredit402 } from 'credit402/node-http';

const gate: Gate = createCredit402({ stripeSecretKey: 'sk_test_x', stripePublishableKey: 'pk_test_x', serverSecret: 'a-server-secret-of-at-least-32-characters', store: new MemoryStore() });
const credit402 = credit402Express(gate);
const app = express();
app.use(credit402.targetGuard());
app.use(credit402Middleware(gate));
app.get('/api/weather', credit402.route({ amount: 500, description: 'Weather lookup' }), (_req, res) => {
  const payment: PaymentResponse | undefined = res.locals.credit402;
  // @ts-expect-error res.locals.credit402 is a PaymentResponse (Express's Locals interface), not any
  const wrong: string | undefined = res.locals.credit402?.creditsRemaining;
  res.json({ creditsRemaining: payment?.creditsRemaining, wrong });
});
export { app, Credit402ConfigError, credit402WebhookMiddleware, createCredit402Fetch, applyCredit402 };
`;

/** A Fastify-only user's file (no express, no @types/express): the root entry, credit402/fastify and credit402/webhooks. */
const FASTIFY_CONSUMER = `// Type-checked in a project without express.
import Fastify from 'fastify';
import { createCredit402, credit402Fastify as fromRoot, credit402WebhookFastify, createCredit402Webhooks, type Gate } from 'credit402';
import { credit402Fastify, credit402FrameworkErrors } from 'credit402/fastify';
import { MemoryStore } from 'credit402/stores';
import { RedisStore } from 'credit402/stores/redis';

const store = new MemoryStore();
const gate: Gate = createCredit402({ stripeSecretKey: 'sk_test_x', stripePublishableKey: 'pk_test_x', serverSecret: 'a-server-secret-of-at-least-32-characters', store });
const handler = createCredit402Webhooks({ stripeSecretKey: 'sk_test_x', stripeWebhookSecret: 'whsec_x', store });
const app = Fastify({ frameworkErrors: credit402FrameworkErrors });
await app.register(credit402Fastify, { gate });
await app.register(fromRoot, { gate });
await app.register(credit402WebhookFastify, { handler });
// @ts-expect-error the plugin's options need a gate
await app.register(fromRoot, { store });
app.get('/api/weather', { config: { credit402: { amount: 500 } } }, async (request) => ({ creditsRemaining: request.credit402?.creditsRemaining }));
export { app, RedisStore };
`;

/** A store author's test file, written outside the repository: a Map-based backend with only the required methods. */
const TOY_STORE_TEST = `// A toy store: a Map-based StoreBackend with only the required methods, guarded by GuardedStore, through the conformance suite.
import { randomUUID } from 'node:crypto';
import { GuardedStore, StoreIdentityError, type BackendDeduction, type BackendRefund, type StoreBackend, type TopUpCredit } from 'credit402/stores';
import { describeStoreConformance } from 'credit402/stores/conformance';

type Client = { balances: Record<string, number>; topUps: number; createdAt: string };

// No await anywhere: each call applies at once, so atomically and within its caller's deadline.
class ToyBackend implements StoreBackend {
  clients = new Map<string, Client>();
  requests = new Map<string, { fingerprint: string; repeated: boolean; expiresAt: number }>();
  done = new Set<string>(); // credited PaymentIntents and applied refund ids, kept forever
  id = randomUUID();
  client = (id: string) => this.clients.get(id) ?? this.clients.set(id, { balances: {}, topUps: 0, createdAt: new Date().toISOString() }).get(id)!;
  balance = (id: string, currency: string) => this.clients.get(id)?.balances[currency] ?? 0;
  add(id: string, currency: string, amount: number) {
    if (this.balance(id, currency) + amount > Number.MAX_SAFE_INTEGER) throw new RangeError('balance past 2^53 - 1');
    return (this.client(id).balances[currency] = this.balance(id, currency) + amount);
  }
  async deductBalance({ clientId, currency, amount, request }: BackendDeduction) {
    const kept = request && this.requests.get(clientId + ' ' + request.id);
    if (request && kept && kept.expiresAt > Date.now()) {
      if (kept.fingerprint !== request.fingerprint || kept.repeated) return { status: 'conflict' } as const;
      kept.repeated = true;
      return { status: 'repeated', balance: this.balance(clientId, currency) } as const;
    }
    const balance = this.balance(clientId, currency);
    if (!this.clients.has(clientId) || balance < amount) return { status: 'insufficient' } as const;
    if (amount > 0) this.client(clientId).balances[currency] = balance - amount;
    if (request) this.requests.set(clientId + ' ' + request.id, { fingerprint: request.fingerprint, repeated: false, expiresAt: Date.now() + request.ttlMs });
    return { status: 'deducted', balance: balance - amount } as const;
  }
  async refundDeduction({ clientId, currency, amount, requestId, refundId }: BackendRefund) {
    if (this.done.has(clientId + ' ' + refundId)) return { status: 'refunded', balance: this.balance(clientId, currency) } as const;
    const kept = this.requests.get(clientId + ' ' + requestId);
    // Its repeat was answered: the deduction paid for it, so nothing goes back (CR-6.9).
    if (kept && kept.repeated && kept.expiresAt > Date.now()) return { status: 'superseded', balance: this.balance(clientId, currency) } as const;
    const balance = this.add(clientId, currency, amount);
    this.requests.delete(clientId + ' ' + requestId);
    this.done.add(clientId + ' ' + refundId);
    return { status: 'refunded', balance } as const;
  }
  async creditTopUp({ clientId, currency, amount, paymentIntentId, storeId }: TopUpCredit) {
    if (storeId !== undefined && storeId !== this.id) throw new StoreIdentityError('ToyStore', storeId); // nothing here can be reset
    if (this.done.has(paymentIntentId)) return { credited: false, balance: this.balance(clientId, currency) };
    const balance = this.add(clientId, currency, amount);
    this.done.add(paymentIntentId);
    this.client(clientId).topUps += 1;
    return { credited: true, balance };
  }
  async addBalance(clientId: string, currency: string, amount: number) { return this.add(clientId, currency, amount); }
  async ensureClient(clientId: string) { this.client(clientId); }
  async getClient(clientId: string) {
    const client = this.clients.get(clientId);
    return client ? { ...client, balances: { ...client.balances } } : null;
  }
  async getStoreId() { return this.id; }
  async close() {}
}

describeStoreConformance('ToyStore', async () => new GuardedStore(new ToyBackend(), { name: 'ToyStore' }));
`;

const TOY_ADAPTER = `// A toy adapter on plain node:http, written against the installed credit402/gate only: a gated route challenges, a free one passes, an ambiguous target is refused.
import { createServer, get } from 'node:http';
import { createCredit402 } from 'credit402';
import { readRequestTarget, routerTarget } from 'credit402/gate';
import { MemoryStore } from 'credit402/stores';

const gate = createCredit402({ stripeSecretKey: 'sk_test_x', stripePublishableKey: 'pk_test_x', serverSecret: 'a-server-secret-of-at-least-32-characters', store: new MemoryStore(), routes: { 'GET /api/weather': { amount: 500 } } });
const server = createServer(async (req, res) => {
  const decision = await gate.handle({ method: req.method, url: req.url, paymentHeader: req.headers.payment, clientAddress: req.socket.remoteAddress });
  if (decision.action === 'respond') return void res.writeHead(decision.status, decision.headers).end(JSON.stringify(decision.body));
  if (decision.action === 'serve') {
    for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
    res.once('finish', () => void decision.settle({ status: res.statusCode }));
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ routed: routerTarget(req.url), path: readRequestTarget(req.url).path }));
});
// The target sent as written (a URL would drop the dot segment).
const rawStatus = (port, path) => new Promise((resolve, reject) => get({ host: '127.0.0.1', port, path }, (res) => resolve(res.statusCode)).on('error', reject));
server.listen(0, '127.0.0.1', async () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  const gated = await fetch(base + '/api/%77eather');
  const free = await fetch(base + '/free?x=1');
  const ambiguous = await rawStatus(server.address().port, '/api/./weather');
  console.log(JSON.stringify({ gated: gated.status, challenged: gated.headers.has('payment-required'), free: free.status, freeBody: await free.json(), ambiguous }));
  server.close();
});
`;

/** Type-checks `source` as `name` in the project `dir` against the installed packages' .d.ts, with skipLibCheck off. */
async function typeCheck(dir: string, name: string, source: string): Promise<void> {
  writeFileSync(join(dir, name), source);
  const types = join(ROOT, 'node_modules/@types');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, typeRoots: [types], types: ['node'] },
    files: [name],
  }));
  await sh(process.execPath, [join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc'), '-p', '.'], dir);
}

/** The `sources` of every .map file of an installed package that do not resolve to a file inside it. */
function unresolvedMapSources(packageDir: string, files: ReadonlyArray<{ path: string }>): string[] {
  return files.filter((file) => file.path.endsWith('.map')).flatMap((file) => {
    const map = JSON.parse(readFileSync(join(packageDir, file.path), 'utf8')) as { sourceRoot?: string; sources?: string[] };
    return (map.sources ?? []).filter((source) => {
      const target = resolve(dirname(join(packageDir, file.path)), map.sourceRoot ?? '', source);
      return relative(packageDir, target).startsWith('..') || !existsSync(target);
    }).map((source) => `${file.path}: ${source}`);
  });
}

/** Starts `command` and resolves with its first output line matching `pattern`; the child is returned for stopping. */
function startAndWait(command: string, args: string[], cwd: string, pattern: RegExp): Promise<{ line: string; stop(): void }> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} printed no line matching ${pattern} in 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ line: match[0], stop: () => void child.kill('SIGTERM') });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
  });
}

/**
 * Runs the kit installed in `dir` with `args`; resolves to its `N passed, 0 failed` line, throws with the end of its
 * output unless it passed a scenario and failed none (and, with `claimed`, its output matches it).
 */
async function kitPasses(dir: string, args: string[], timeoutMs: number, claimed?: RegExp): Promise<string> {
  const out = await sh(join(dir, 'node_modules/.bin/credit402-conformance'), args, dir, timeoutMs);
  const summary = /^(\d+) passed, (\d+) failed$/m.exec(out);
  if (summary?.[2] !== '0' || summary[1] === '0' || (claimed !== undefined && !claimed.test(out))) {
    throw new Error(`the kit's ${args[0]} run: ${summary?.[0] ?? 'no summary'}\n${out.slice(-2000)}`);
  }
  return summary[0];
}

/** The kit's client mode on `clientCmd` at the robust level, with robustness and the spending limit declared. */
const robustClientRun = (clientCmd: string): string[] => ['client', '--client-cmd', clientCmd, '--level', 'robust', '--declare', 'robustness=true', '--declare', 'capabilities=spending-limit'];
/** The console report's line of a run that claimed the robust level. */
const ROBUST_CLAIMED = /robust .*claimed/;

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} kB`;

async function main(): Promise<void> {
  let packs: PackInfo[] = [];
  await check('npm pack builds the three packages with no tests, test tooling (self-test, testing, crash-test, fault-load), sources or CI files in them', async () => {
    const out = await sh('npm', ['pack', '--json', '--pack-destination', work, ...Object.keys(PACKAGES).flatMap((folder) => ['--workspace', folder])], ROOT);
    packs = JSON.parse(out.slice(out.indexOf('['))) as PackInfo[];
    const tooling = /(^|\/)(self-test|testing|crash-test|fault-load)\//;
    const stray = packs.flatMap((pack) => pack.files.filter((file) => tooling.test(file.path) || (/\.test\.|(^|\/)\.ci\/|\.ts$/.test(file.path) && !file.path.endsWith('.d.ts'))).map((file) => `${pack.name}: ${file.path}`));
    if (stray.length > 0) throw new Error(`files users do not need:\n${stray.join('\n')}`);
    return packs.map((pack) => `${pack.name}: ${pack.entryCount} files, ${kb(pack.unpackedSize)} unpacked`).join('\n');
  });
  if (packs.length !== 3) return;
  const tarball = (name: string): string => join(work, packs.find((pack) => pack.name === name)?.filename ?? '');
  // The repository's compiled better-sqlite3 stands in for the user's (compiling it again takes over a minute here).
  const betterSqlite3 = realpathSync(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')));

  let full = '';
  await check('an empty project installs the three tarballs with Fastify, Express, Redis, Postgres, SQLite, prom-client and stripe', async () => {
    full = await project('full', [...Object.values(PACKAGES).map(tarball), 'fastify@5', 'express@5', 'redis@5', 'pg@8', 'prom-client@15', 'stripe@23', betterSqlite3]);
    const lock = lockfile(full);
    return Object.values(PACKAGES)
      .map((name) => `${name}: ${dependencyClosure(lock, name).size} packages installed with it`)
      .join('\n');
  });
  if (!full) return;

  await check('every export of every package loads under ESM and with require()', async () => {
    writeFileSync(join(full, 'imports.mjs'), importScript(packs, (specifier) => !AUTHOR_ONLY.includes(specifier)));
    return sh(process.execPath, ['imports.mjs'], full);
  });

  await check('a consumer .ts file type-checks against the published .d.ts', async () => {
    await typeCheck(full, 'consumer.ts', CONSUMER);
  });

  await check('every source map of the three packages names only files shipped in its package', async () => {
    const unresolved = packs.flatMap((pack) => unresolvedMapSources(join(full, 'node_modules', pack.name), pack.files).map((line) => `${pack.name}: ${line}`));
    if (unresolved.length > 0) throw new Error(`map sources not in the package:\n${unresolved.slice(0, 20).join('\n')}${unresolved.length > 20 ? `\n… ${unresolved.length - 20} more` : ''}`);
    return packs.map((pack) => `${pack.name}: ${pack.files.filter((file) => file.path.endsWith('.map')).length} maps`).join('\n');
  });

  await check('the kit command passes every scenario against the library\'s server command', async () => {
    const server = `${join(full, 'node_modules/.bin/credit402')} serve --store memory --host 127.0.0.1 --profile "$CREDIT402_PROFILE" --port "$PORT"`;
    return kitPasses(full, ['conformance', '--target-cmd', server, '--emulator-port', '0'], 600_000);
  });

  await check('a toy adapter on node:http, written against the installed credit402/gate, challenges, passes and refuses as the gate decides', async () => {
    writeFileSync(join(full, 'toy-adapter.mjs'), TOY_ADAPTER);
    const out = (await sh(process.execPath, ['toy-adapter.mjs'], full)).trim();
    const expected = { gated: 402, challenged: true, free: 200, freeBody: { routed: '/free?x=1', path: '/free' }, ambiguous: 400 };
    if (JSON.stringify(JSON.parse(out)) !== JSON.stringify(expected)) throw new Error(`expected ${JSON.stringify(expected)}, got ${out}`);
    return out;
  });

  await check("the kit's client mode claims every level for the kit's own minimal client driver", async () => {
    copyFileSync(join(ROOT, 'harness/client/fixtures/fetch-driver.mjs'), join(full, 'fetch-driver.mjs'));
    return kitPasses(full, robustClientRun('node fetch-driver.mjs'), 120_000, ROBUST_CLAIMED);
  });

  await check("the kit's client mode claims every level for credit402/client through its shipped driver (credit402 client-driver)", async () => {
    return kitPasses(full, robustClientRun('npx --no-install credit402 client-driver'), 180_000, ROBUST_CLAIMED);
  });

  await check('the emulator command serves one PaymentIntent to the official stripe SDK', async () => {
    const emulator = await startAndWait(join(full, 'node_modules/.bin/credit402-stripe-emulator'), ['--port', '0'], full, /listening at (http:\/\/\S+)/);
    try {
      const url = new URL(emulator.line.split(' ').at(-1) ?? '');
      writeFileSync(join(full, 'pay.mjs'), `import Stripe from 'stripe';
const stripe = new Stripe('sk_test_packtest', { host: '${url.hostname}', port: ${url.port}, protocol: 'http', maxNetworkRetries: 0 });
const intent = await stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
if (intent.status !== 'succeeded') throw new Error('status ' + intent.status);
console.log(intent.id + ' ' + intent.status + ' ' + intent.amount + ' ' + intent.currency);
`);
      return await sh(process.execPath, ['pay.mjs'], full);
    } finally {
      emulator.stop();
    }
  });

  let lean = '';
  await check('a Fastify + Redis user installs the library without cucumber, fast-check, autocannon, Express or better-sqlite3', async () => {
    lean = await project('fastify-redis', [tarball('credit402'), 'fastify@5', 'redis@5']);
    const installed = Object.keys(lockfile(lean).packages).map((path) => path.replace(/^.*node_modules\//, ''));
    const unwanted = [...DEV_ONLY, 'express', 'better-sqlite3', 'credit402-stripe-emulator', 'credit402-conformance'].filter((name) => installed.includes(name));
    if (unwanted.length > 0) throw new Error(`installed anyway: ${unwanted.join(', ')}`);
    return `${dependencyClosure(lockfile(lean), 'credit402').size} packages come with credit402 (${installed.length - 1} in the project)`;
  });

  if (lean) {
    await check('a Fastify-only consumer (no express, no @types/express) type-checks with skipLibCheck off', async () => {
      await typeCheck(lean, 'consumer.ts', FASTIFY_CONSUMER);
    });

    await check('a missing optional package is named with the command that installs it', async () => {
      const cli = join(lean, 'node_modules/.bin/credit402');
      const failures = await Promise.all([
        run(cli, ['serve', '--store', 'sqlite', '--stripe-api', 'http://127.0.0.1:9', '--port', '0'], { cwd: lean }).then(() => 'started', (error: { stderr: string }) => error.stderr),
        run(cli, ['serve', '--store', 'memory', '--port', '0'], { cwd: lean }).then(() => 'started', (error: { stderr: string }) => error.stderr),
        run(cli, ['serve', '--store', 'postgres', '--stripe-api', 'http://127.0.0.1:9', '--port', '0'], { cwd: lean }).then(() => 'started', (error: { stderr: string }) => error.stderr),
        run(cli, ['gateway', '--upstream', 'http://127.0.0.1:9', '--store', 'memory', '--stripe-api', 'http://127.0.0.1:9', '--port', '0', '--metrics-path', '/metrics'], { cwd: lean }).then(() => 'started', (error: { stderr: string }) => error.stderr),
      ]);
      const expected = ['npm install better-sqlite3', 'npm install credit402-stripe-emulator', 'npm install pg', 'npm install prom-client'];
      expected.forEach((text, index) => {
        if (!failures[index]?.includes(`ERR_MISSING_PACKAGE`) || !failures[index]?.includes(text)) throw new Error(`expected "${text}", got:\n${failures[index]}`);
      });
      return failures.map((text) => text.split('\n')[0]).join('\n');
    });
  }

  let expressOnly = '';
  await check('an Express user installs the library without fastify', async () => {
    expressOnly = await project('express-only', [tarball('credit402'), 'express@5', '@types/express@5']);
    const installed = Object.keys(lockfile(expressOnly).packages).map((path) => path.replace(/^.*node_modules\//, ''));
    const unwanted = [...DEV_ONLY, 'fastify', 'better-sqlite3'].filter((name) => installed.includes(name));
    if (unwanted.length > 0) throw new Error(`installed anyway: ${unwanted.join(', ')}`);
    return `${installed.length - 1} packages in the project`;
  });
  if (!expressOnly) return;

  await check('an Express-only consumer (no fastify) type-checks with skipLibCheck off, res.locals.credit402 typed', async () => {
    await typeCheck(expressOnly, 'consumer.ts', EXPRESS_CONSUMER);
  });

  await check('credit402 serve without --framework runs on Express where fastify is not installed', async () => {
    const args = ['serve', '--store', 'memory', '--stripe-api', 'http://127.0.0.1:9', '--host', '127.0.0.1', '--port', '0'];
    const server = await startAndWait(join(expressOnly, 'node_modules/.bin/credit402'), args, expressOnly, /credit402: framework express[^\n]*\n[^\n]*\(express, store: memory\)/);
    server.stop();
    return server.line.split('\n')[0];
  });

  await check('a store author\'s toy store (GuardedStore around a backend with only the required methods) passes the conformance suite', async () => {
    const author = await project('store-author', [tarball('credit402'), 'vitest@4', 'fast-check@4']);
    writeFileSync(join(author, 'imports.mjs'), importScript(packs.filter((pack) => pack.name === 'credit402'), (specifier) => AUTHOR_ONLY.includes(specifier)));
    const loaded = await sh(process.execPath, ['imports.mjs'], author);
    await typeCheck(author, 'toy-store.test.ts', TOY_STORE_TEST);
    // vitest colours its summary whatever FORCE_COLOR says: the escapes are dropped before it is read.
    const out = stripVTControlCharacters(await sh(join(author, 'node_modules/.bin/vitest'), ['run', 'toy-store.test.ts'], author));
    const counts = out.split('\n').filter((line) => /^\s*(Test Files|Tests)\s/.test(line)).map((line) => line.trim());
    if (!/Tests\s+\d+ passed \| \d+ skipped/.test(counts.join('\n'))) throw new Error(`expected passed and skipped tests:\n${out.slice(-3000)}`);
    return [loaded.trim(), ...counts].join('\n');
  });
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
const failed = results.filter((result) => !result.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
