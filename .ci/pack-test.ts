// `npm run pack-test` (part of `npm test`): packs the three packages and uses them from empty projects as a new user would, with plain Node.
// Checks: every export under ESM and require(), the published types, the kit against the library's server command, the emulator's command
// through the official stripe SDK, and what a Fastify + Redis user installs. Ends with `N passed, N failed`.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

/** The script that imports every export of every package, under ESM and with require(). */
function importScript(packs: readonly PackInfo[]): string {
  const specifiers = packs.flatMap((pack) => {
    const folder = Object.entries(PACKAGES).find(([, name]) => name === pack.name)?.[0] ?? '';
    const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    return Object.keys(manifest.exports).map((key) => `${pack.name}${key.slice(1)}`);
  });
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

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} kB`;

async function main(): Promise<void> {
  let packs: PackInfo[] = [];
  await check('npm pack builds the three packages with no tests, sources or CI files in them', async () => {
    const out = await sh('npm', ['pack', '--json', '--pack-destination', work, ...Object.keys(PACKAGES).flatMap((folder) => ['--workspace', folder])], ROOT);
    packs = JSON.parse(out.slice(out.indexOf('['))) as PackInfo[];
    const stray = packs.flatMap((pack) => pack.files.filter((file) => /\.test\.|(^|\/)\.ci\/|\.ts$/.test(file.path) && !file.path.endsWith('.d.ts')).map((file) => `${pack.name}: ${file.path}`));
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
    writeFileSync(join(full, 'imports.mjs'), importScript(packs));
    return sh(process.execPath, ['imports.mjs'], full);
  });

  await check('a consumer .ts file type-checks against the published .d.ts', async () => {
    writeFileSync(join(full, 'consumer.ts'), CONSUMER);
    const types = join(ROOT, 'node_modules/@types');
    writeFileSync(join(full, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, typeRoots: [types], types: ['node'] },
      files: ['consumer.ts'],
    }));
    await sh(process.execPath, [join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc'), '-p', '.'], full);
  });

  await check('the kit command passes every scenario against the library\'s server command', async () => {
    const server = `${join(full, 'node_modules/.bin/credit402')} serve --store memory --host 127.0.0.1 --profile "$CREDIT402_PROFILE" --port "$PORT"`;
    const out = await sh(join(full, 'node_modules/.bin/credit402-conformance'), ['conformance', '--target-cmd', server, '--emulator-port', '0'], full, 600_000);
    const summary = /^(\d+) passed, (\d+) failed$/m.exec(out);
    if (summary?.[2] !== '0' || summary[1] === '0') throw new Error(`the kit's summary: ${summary?.[0] ?? 'none'}\n${out.slice(-2000)}`);
    return `${summary[0]}`;
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
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
const failed = results.filter((result) => !result.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
