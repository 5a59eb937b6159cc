// `npm test`: vitest, the lint, the import boundaries, the coverage check, the conformance suite against the reference on every store and both frameworks (table and per-route gating) and against the gateway, generated histories on four stores, the client mode against credit402/client, the Python example client and the mutant clients, three instances on one store, the crash test, the fault load, then the pack test; one total line.
import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';

interface Step {
  name: string;
  args: string[];
  /** Runs with no other step beside it: vitest, whose own workers fill the cores. */
  alone?: boolean;
}

/** How many of the steps that are not `alone` run at once (`CREDIT402_TEST_JOBS`, default 3): they mostly wait on sockets and children. */
const JOBS = Math.max(1, Number(process.env.CREDIT402_TEST_JOBS ?? 3) || 1);

const SOURCE = ['tsx', '--conditions=credit402-source'];

/**
 * A conformance step: the kit's reports go to a folder of the step's own, since steps run side by side and one folder
 * would be cleared and rewritten by two runs at once (the kit's default is `reports` in the current directory).
 */
function conformance(name: string, script: string, ...args: string[]): Step {
  const folder = name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase();
  return { name, args: [...SOURCE, script, ...args, '--reports', `reports/npm-test/${folder}`] };
}

const STEPS: Step[] = [
  { name: 'unit and integration tests', args: ['vitest', 'run'], alone: true },
  { name: 'lint', args: ['biome', 'lint', '--error-on-warnings', '.'] },
  { name: 'import boundaries between the packages', args: ['tsx', '.ci/check-boundaries.ts'] },
  { name: 'requirement coverage', args: [...SOURCE, 'harness/cli.ts', 'coverage', '--tests', 'reference', '--tests', 'tooling', '--tests', 'harness', '--tests', 'emulator'] },
  // The longest first, so that the three slots end together.
  { name: 'crash test: 200 SIGKILLs per store, sqlite, redis and postgres', args: [...SOURCE, 'tooling/crash-test/main.ts', '--iterations', '200', '--store', 'all']},
  { name: 'generated histories against the ledger model: the reference on memory, sqlite, redis and postgres with store faults, refundOnHandlerError off and on (fixed seeds, then one fresh seed), and the gateway in front of the kit\'s upstream on memory and redis', args: [...SOURCE, 'tooling/self-test/history.ts', '--store', 'memory,sqlite,redis,postgres'] },
  conformance('conformance: fastify + sqlite', 'tooling/self-test/conformance.ts', '--store', 'sqlite', '--framework', 'fastify'),
  conformance('conformance: fastify + redis', 'tooling/self-test/conformance.ts', '--store', 'redis', '--framework', 'fastify'),
  conformance('conformance: fastify + redis cluster (three masters)', 'tooling/self-test/conformance.ts', '--store', 'redis-cluster', '--framework', 'fastify'),
  conformance('conformance: fastify + postgres', 'tooling/self-test/conformance.ts', '--store', 'postgres', '--framework', 'fastify'),
  conformance('conformance: express + sqlite', 'tooling/self-test/conformance.ts', '--store', 'sqlite', '--framework', 'express'),
  conformance('conformance: express + memory', 'tooling/self-test/conformance.ts', '--store', 'memory', '--framework', 'express'),
  conformance('conformance: fastify per-route + sqlite', 'tooling/self-test/conformance.ts', '--store', 'sqlite', '--framework', 'fastify', '--gating', 'per-route'),
  conformance('conformance: express per-route + memory', 'tooling/self-test/conformance.ts', '--store', 'memory', '--framework', 'express', '--gating', 'per-route'),
  conformance('conformance: hono per-route + redis (node, @hono/node-server)', 'tooling/self-test/conformance.ts', '--store', 'redis', '--framework', 'hono', '--gating', 'per-route'),
  conformance('conformance: hono + memory under bun', 'tooling/self-test/conformance.ts', '--store', 'memory', '--framework', 'hono', '--runtime', 'bun'),
  conformance('conformance: the gateway (SQLite) in front of a Python http.server upstream', 'tooling/self-test/gateway-conformance.ts'),
  conformance("conformance: the gateway (SQLite) in front of the kit's controlled upstream (capability gateway)", 'tooling/self-test/gateway-conformance.ts', '--upstream', 'kit'),
  conformance('client conformance: credit402/client (every level), the Python example client (wire) and each mutant client', 'tooling/self-test/client-conformance.ts', '--all'),
  { name: 'three instances on one store: postgres', args: [...SOURCE, 'tooling/self-test/multi-instance.ts', '--store', 'postgres'] },
  { name: 'three instances on one store: redis', args: [...SOURCE, 'tooling/self-test/multi-instance.ts', '--store', 'redis'] },
  { name: 'three instances on one store: sqlite (WAL, one file)', args: [...SOURCE, 'tooling/self-test/multi-instance.ts', '--store', 'sqlite'] },
  { name: 'pack test: the three packages installed from their tarballs in an empty project', args: [...SOURCE, '.ci/pack-test.ts']},
  { name: 'fault load: paid requests, first payments and refunds of failed handlers behind a faulty link to redis and postgres, the money checked', args: [...SOURCE, 'tooling/fault-load/main.ts', '--seconds', '20', '--store', 'all']},
];

const SUMMARY = /^(\d+) passed, (\d+) failed/m;

/** How much of a step's stderr is kept for the closing block (its end, where the reason of a failed start is). */
const STDERR_KEPT = 64 * 1024;

/** The last lines of a step's stderr that say something (at most 8), for the closing block. */
function lastErrorLines(errors: string): string[] {
  const lines = errors.split('\n').filter((line) => line.trim() !== '');
  return lines.slice(-8).map((line) => `  stderr: ${line.slice(0, 300)}`);
}

interface StepResult {
  code: number;
  passed: number;
  failed: number;
  output: string;
  errors: string;
  seconds: number;
}

/**
 * Runs one step. A step running alone streams its output; one running beside others keeps it and writes it whole when
 * it ends, so that the log reads step by step. Its counts are its own `N passed, N failed` line or, for a step that
 * prints none (the lint, the coverage check), one check passed or failed by its exit code.
 */
function run(step: Step, stream: boolean): Promise<StepResult> {
  return new Promise((resolve) => {
    const header = `\n=== ${step.name}: npx ${step.args.join(' ')}\n`;
    if (stream) process.stdout.write(header);
    else process.stdout.write(`\n--- started: ${step.name}\n`);
    const started = Date.now();
    const child = spawn('npx', step.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (stream) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-STDERR_KEPT);
      if (stream) process.stderr.write(chunk);
    });
    child.on('close', (code) => {
      const seconds = (Date.now() - started) / 1000;
      if (!stream) {
        process.stdout.write(header + output);
        process.stderr.write(errors);
      }
      const lines = output.trimEnd().split('\n');
      const summary = SUMMARY.exec(lines.slice(-3).join('\n'));
      const exit = code ?? 1;
      if (!summary) {
        resolve({ code: exit, passed: exit === 0 ? 1 : 0, failed: exit === 0 ? 0 : 1, output, errors, seconds });
        return;
      }
      const passed = Number(summary[1]);
      const failed = Number(summary[2]);
      resolve({ code: exit, passed, failed: failed + (exit !== 0 && failed === 0 ? 1 : 0), output, errors, seconds });
    });
  });
}

/** A failure's first lines (a kit's `✗`, vitest's `×`/`FAIL`, a check's violations) and the three after each, at most 24. */
function failureLines(output: string): string[] {
  // Colours off first: vitest colours its `×` and `FAIL` lines even when it writes to a pipe under CI.
  const lines = stripVTControlCharacters(output).split('\n');
  const picked = new Set<number>();
  lines.forEach((line, i) => {
    if (/^\s*(✗|×|FAIL\b)|violations: [1-9]/.test(line)) for (let j = i; j < Math.min(i + 4, lines.length); j++) picked.add(j);
  });
  return [...picked].slice(0, 24).map((i) => `  ${(lines[i] ?? '').slice(0, 300)}`);
}

let passed = 0;
let failed = 0;
const failedSteps: string[] = [];
const failures: string[] = [];
const times: string[] = [];
const totalStarted = Date.now();

/** Adds a finished step to the totals and, when it failed, its reason to the closing block. */
function record(step: Step, result: StepResult): void {
  passed += result.passed;
  failed += result.failed;
  times.push(`  ${result.seconds.toFixed(0).padStart(5)} s  ${step.name}`);
  if (result.code === 0) return;
  failedSteps.push(step.name);
  failures.push(`${step.name} (exit code ${result.code}):`, ...failureLines(result.output), ...lastErrorLines(result.errors));
}

// `npm test -- WORDS…` runs only the steps whose name holds one of the words (e.g. `npm test -- conformance`).
const only = process.argv.slice(2);
const chosen = only.length === 0 ? STEPS : STEPS.filter((step) => only.some((word) => step.name.includes(word)));
if (chosen.length === 0) {
  process.stderr.write(`npm test: no step's name holds ${only.map((word) => JSON.stringify(word)).join(' or ')}; the steps are:\n${STEPS.map((step) => `  ${step.name}`).join('\n')}\n`);
  process.exit(2);
}

// In order: a step that runs alone waits for the running ones and runs by itself; the others run up to JOBS at once.
const running = new Set<Promise<void>>();
for (const step of chosen) {
  if (step.alone === true || JOBS === 1) {
    await Promise.all(running);
    record(step, await run(step, true));
    continue;
  }
  while (running.size >= JOBS) await Promise.race(running);
  const job: Promise<void> = run(step, false).then((result) => {
    record(step, result);
    running.delete(job);
  });
  running.add(job);
}
await Promise.all(running);
process.stdout.write(`\nstep times (wall, ${JOBS} at once where a step may share; ${((Date.now() - totalStarted) / 60000).toFixed(1)} min in all):\n${times.join('\n')}\n`);
// Repeated at the end, where a log shown only in part still has them.
if (failures.length > 0) process.stdout.write(`\nwhat failed:\n${failures.join('\n')}\n`);
if (failedSteps.length > 0) process.stdout.write(`\nfailed: ${failedSteps.join('; ')}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failedSteps.length > 0 ? 1 : 0);
