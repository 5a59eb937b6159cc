// `npx tsx --conditions=credit402-source tooling/self-test/multi-instance.ts --store postgres|redis|sqlite [--instances 3] [--tags EXPR]`:
// N reference server processes on one store behind a round-robin balancer; the self-test's own checks, then the kit's
// concurrency and robustness scenarios through the balancer; ends with one line `N passed, N failed`.
// `--separate-stores` (sqlite only) is the negative control: each instance gets its own file, so nothing is shared and the run must fail.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { KIT_COMMAND, REPO_ROOT, SOURCE_NODE_OPTIONS } from '../testing/kit.ts';
import { provisionStore, storeFixtureKinds } from '../testing/store-fixtures.ts';
import { runDirectChecks, type Deployment } from './multi-instance-checks.ts';
import { startRoundRobin, type RoundRobin } from './round-robin.ts';

/** The stores several server processes can share. */
const STORES = storeFixtureKinds((fixture) => fixture.shared);

/**
 * The kit's scenarios that judge a deployment of several instances correctly through a round-robin balancer.
 * Every scenario makes its own card; each of its requests, and each webhook delivery of the emulator (registered at
 * the balancer's URL), lands on the next instance, so consecutive steps of one client are served by different processes.
 * - @atomicity: the concurrency scenarios: 50 spends at once against a balance worth 20 (§6, no overdraft), 5 first
 *   payments at once with one card (§7, one PaymentIntent credited once), 10 first payments at once making one charge
 *   (§14, CR-14.7: the per-client lease is in the store, so it holds across processes).
 * - @robustness: the webhook scenarios (§14): events of a payment served by one instance are settled by whichever
 *   instance their delivery reaches (credited once, refunds and disputes once, any order, duplicates), and the client
 *   who gave up on one instance retries on another (@faults of §14: the idempotency key comes from the store).
 * - @faults: processor faults at the shared emulator; the retry of a failed payment reaches another instance and still
 *   sends the first attempt's idempotency key (CR-7.16).
 * - @shared-card: scenarios on Stripe's fixed test cards, whose client state is shared and read by any instance.
 * - @records: the records control route reads the shared store, so any instance answers for all.
 * Handler runs are counted per process; the balancer sums `GET /_conformance/handled` over the instances, so the
 * kit's check after every scenario (each served request's handler ran exactly once, anywhere) stays exact.
 * Left out:
 * - @store-faults: an armed store fault lives in the process that received the POST, while the requests it should
 *   fail reach any instance, so those scenarios would be judged wrong (the third check of multi-instance-checks.ts
 *   arms a fault on one instance on purpose instead).
 * - the other scenarios (headers, routing, challenges, errors, limits, identity, versioning, spec points, fuzzing):
 *   decisions about one request, which no instance shares with another; `npm run conformance` runs them on each store.
 *   They pass through the balancer too (`--tags "not @store-faults"`), but would double the step's time.
 */
const SCENARIOS = '(@atomicity or @robustness or @faults or @shared-card or @records) and not @store-faults';

/** Variables that would make a reference server ignore the profile or the run's store. */
const PROFILE_OVERRIDES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'CREDIT402_SERVER_SECRET', 'CREDIT402_STORE', 'CREDIT402_FRAMEWORK', 'HOST', 'PORT', 'STRIPE_WEBHOOK_SECRET'];

const started = Date.now();
const seconds = (since = started): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const say = (line: string): void => void process.stderr.write(`multi-instance: ${line}\n`);
const SUMMARY = /^(\d+) passed, (\d+) failed$/;

/** Undone at the end, last first, whatever happened. */
const cleanups: Array<{ what: string; run: () => Promise<void> | void }> = [];
/** Child processes still running, SIGKILLed if this process exits before stopping them. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

async function cleanUp(): Promise<void> {
  for (const { what, run } of cleanups.splice(0).reverse()) {
    try {
      await run();
    } catch (error) {
      say(`cleaning up ${what} failed: ${(error as Error).message}`);
    }
  }
}

/** The store of the run, fresh (its fixture): the environment that points a reference server at it. */
async function prepareStore(kind: string): Promise<{ env: NodeJS.ProcessEnv; label: string; serverKind: string }> {
  const provisioned = await provisionStore(kind);
  cleanups.push({ what: `the store (${provisioned.label})`, run: () => provisioned.release() });
  return { env: provisioned.env, label: provisioned.fixture.kind === 'sqlite' ? `${provisioned.label} (WAL, one file for every instance)` : provisioned.label, serverKind: provisioned.fixture.serverKind };
}

/** Runs the kit with `args`; resolves to its exit code. `onLine` sees (and may rewrite) each line of its stdout before it is printed. */
function runKit(args: readonly string[], onLine: (line: string) => string): Promise<number> {
  const [node = process.execPath, ...rest] = KIT_COMMAND;
  const child = spawn(node, [...rest, ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: REPO_ROOT });
  children.add(child);
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) process.stdout.write(`${onLine(line)}\n`);
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      children.delete(child);
      if (pending) process.stdout.write(`${onLine(pending)}\n`);
      resolve(code ?? 1);
    });
  });
}

/** The profile the kit prints (`credit402-conformance profile`), written to `path`; resolves to its fields. */
async function writeProfile(path: string): Promise<Deployment['profile']> {
  const [node = process.execPath, ...rest] = KIT_COMMAND;
  const child = spawn(node, [...rest, 'profile'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the kit's profile command exited with ${code}`);
  writeFileSync(path, text);
  const profile = JSON.parse(text) as Record<string, unknown>;
  const field = (name: string): string => {
    const value = profile[name];
    if (typeof value !== 'string') throw new Error(`the profile has no ${name}`);
    return value;
  };
  return {
    serverSecret: field('serverSecret'),
    stripePublishableKey: field('stripePublishableKey'),
    stripeSecretKey: field('stripeSecretKey'),
    stripeWebhookSecret: field('stripeWebhookSecret'),
    webhookPath: field('webhookPath'),
  };
}

/** One reference server process. */
interface Instance {
  url: string;
  child: ChildProcess;
  /** Its last output lines. */
  tail: string[];
}

/** Starts reference server number `n` on the run's store; resolves once it answers HTTP. */
async function startInstance(n: number, store: string, env: NodeJS.ProcessEnv, profilePath: string, logPath: string): Promise<Instance> {
  const port = await freePort();
  const args = [...SOURCE_NODE_OPTIONS, join(REPO_ROOT, 'reference/cli.ts'), 'serve', '--store', store, '--framework', 'fastify', '--host', '127.0.0.1', '--port', String(port), '--profile', profilePath, '--conformance-control'];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const log = createWriteStream(logPath);
  const tail: string[] = [];
  const keep = (chunk: Buffer): void => {
    log.write(chunk);
    tail.push(...chunk.toString().trimEnd().split('\n'));
    tail.splice(0, Math.max(0, tail.length - 30));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const instance = { url: `http://127.0.0.1:${port}`, child, tail };
  cleanups.push({ what: `instance ${n}`, run: () => stopInstance(instance).finally(() => log.end()) });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`instance ${n} exited (${child.exitCode ?? child.signalCode}) before answering; its last output:\n${tail.join('\n')}`);
    try {
      const response = await fetch(`${instance.url}/`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return instance;
    } catch {
      if (Date.now() > deadline) throw new Error(`instance ${n} did not answer within 30 s; its last output:\n${tail.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** SIGTERM, then SIGKILL after 5 s. */
async function stopInstance({ child }: Instance): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  children.delete(child);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { store: { type: 'string' }, instances: { type: 'string' }, tags: { type: 'string' }, 'separate-stores': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write('usage: multi-instance.ts --store postgres|redis|sqlite [--instances N (2-8, default 3)] [--tags EXPR (default: the concurrency and robustness scenarios)]\n' +
      '  [--separate-stores: sqlite only, a negative control: one file per instance, nothing shared; the run must fail]\n');
    return 0;
  }
  const separate = values['separate-stores'] === true;
  if (separate && values.store !== 'sqlite') {
    say('--separate-stores needs --store sqlite');
    return 2;
  }
  const store = STORES.find((kind) => kind === values.store);
  const instances = Number(values.instances ?? 3);
  if (store === undefined || !Number.isInteger(instances) || instances < 2 || instances > 8) {
    say(`--store must be one of ${STORES.join(', ')} and --instances an integer from 2 to 8; got ${values.store} and ${values.instances}`);
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'credit402-multi-instance-'));
  let keepDir = false;
  cleanups.push({ what: dir, run: () => (keepDir ? say(`instance logs and the kit's reports are kept in ${dir}`) : rmSync(dir, { recursive: true, force: true })) });

  const prepared = await prepareStore(store);
  say(`store: ${separate ? `sqlite, one file per instance in ${dir}` : prepared.label}`);
  const profilePath = join(dir, 'profile.json');
  const profile = await writeProfile(profilePath);
  const emulator: RunningEmulator = await startEmulator({ port: 0 });
  cleanups.push({ what: 'the Stripe emulator', run: () => emulator.close() });
  const env: NodeJS.ProcessEnv = { ...process.env, ...prepared.env, STRIPE_API_BASE: emulator.url };
  for (const name of PROFILE_OVERRIDES) delete env[name];

  // The first instance creates the tables (or schema) alone; the others then start together on what it made.
  const startedServers = Date.now();
  const envOf = (n: number): NodeJS.ProcessEnv => (separate ? { ...env, CREDIT402_SQLITE_PATH: join(dir, `store-${n}.db`) } : env);
  if (separate) say('negative control: each instance has its own SQLite file; the checks and the kit must fail');
  const first = await startInstance(1, prepared.serverKind, envOf(1), profilePath, join(dir, 'instance-1.log'));
  const others = await Promise.all(Array.from({ length: instances - 1 }, (_, i) => startInstance(i + 2, prepared.serverKind, envOf(i + 2), profilePath, join(dir, `instance-${i + 2}.log`))));
  const servers = [first, ...others];
  const balancer: RoundRobin = await startRoundRobin({ upstreams: servers.map((server) => server.url), summedPaths: ['/_conformance/handled'] });
  cleanups.push({ what: 'the balancer', run: () => balancer.close() });
  say(`${instances} reference servers (fastify, --conformance-control) at ${servers.map((server) => server.url).join(', ')}, started in ${seconds(startedServers)}; balancer at ${balancer.url}; Stripe emulator at ${emulator.url}`);

  const deployment: Deployment = {
    balancerUrl: balancer.url,
    forwarded: () => [...balancer.forwarded],
    instanceUrls: servers.map((server) => server.url),
    emulatorUrl: emulator.url,
    emulatorControlUrl: emulator.controlUrl,
    profile,
  };
  const checksStarted = Date.now();
  const results = await runDirectChecks(deployment);
  let passed = 0;
  let failed = 0;
  for (const result of results) {
    const ok = result.problems.length === 0;
    if (ok) passed++;
    else failed++;
    process.stdout.write(`${ok ? 'ok' : 'FAILED'}: ${result.name} (${(result.ms / 1000).toFixed(1)} s): ${result.measured}\n`);
    for (const problem of result.problems) process.stdout.write(`  - ${problem}\n`);
  }
  say(`the direct checks took ${seconds(checksStarted)}`);

  const kitStarted = Date.now();
  const tags = values.tags ?? SCENARIOS;
  const kitArgs = [
    'conformance', '--target', balancer.url, '--emulator-url', emulator.url, '--tags', tags, '--reports', join(dir, 'reports'),
    // Records are read from the shared store by any instance; store faults are per process, hence not declared.
    '--declare', 'robustness=true', '--declare', 'capabilities=records',
  ];
  let kitCounts: [number, number] | undefined;
  const code = await runKit(kitArgs, (line) => {
    const summary = SUMMARY.exec(line);
    if (!summary) return line;
    kitCounts = [Number(summary[1]), Number(summary[2])];
    return `the kit through the balancer: ${line}`;
  });
  say(`the kit took ${seconds(kitStarted)}; requests per instance ${balancer.forwarded.join('/')}`);
  if (kitCounts === undefined) {
    say(`the kit ended (exit ${code}) without its summary line`);
    failed++;
  } else {
    passed += kitCounts[0];
    failed += kitCounts[1] + (code !== 0 && kitCounts[1] === 0 ? 1 : 0);
  }
  for (const [i, server] of servers.entries()) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      failed++;
      say(`instance ${i + 1} ended during the run; its last output:\n${server.tail.join('\n')}`);
    }
  }
  keepDir = failed > 0;
  await cleanUp();
  process.stdout.write(`${store}, ${instances} instances, ${seconds()} in all\n${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping everything`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything started is stopped; a handle left open (a pool's timer, say) must not keep the process alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  async (error: unknown) => {
    say((error as Error).stack ?? String(error));
    await cleanUp();
    process.exitCode = 2;
  },
);
