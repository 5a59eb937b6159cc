// Starts or checks the target under test: a running URL, a shell command, or the reference server as a child process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetChoice } from './cli-options.ts';
import { freePort } from './free-port.ts';
import { ROOT, TSX_LOADER } from './paths.ts';
import { ProcessGroup } from './process-group.ts';
import { provisionRedis } from './redis.ts';
import type { Teardown } from './teardown.ts';
import { waitForHttp } from './wait-for-http.ts';

/** A target the suite can talk to. */
export interface RunningTarget {
  url: string;
  /** One line saying what runs, for the start-up output. */
  description: string;
  /** The process group, when the runner started the target. */
  group?: ProcessGroup;
}

/** What starting a target needs from the run. */
export interface TargetContext {
  emulatorUrl: string;
  profilePath: string;
  teardown: Teardown;
  /** The target's output goes here. */
  logFile: string;
  startTimeoutMs?: number;
}

/** Variables that would make the reference ignore the profile. */
const PROFILE_OVERRIDES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'CREDIT402_SERVER_SECRET', 'CREDIT402_STORE', 'CREDIT402_FRAMEWORK', 'HOST'];

async function spawnAndWait(command: string | readonly string[], env: NodeJS.ProcessEnv, port: number, ctx: TargetContext): Promise<ProcessGroup> {
  writeFileSync(ctx.logFile, `# ${typeof command === 'string' ? command : command.join(' ')}\n`);
  const group = new ProcessGroup({ command, env, cwd: ROOT, logFile: ctx.logFile });
  ctx.teardown.add('the target', () => group.stop());
  ctx.teardown.lastResort(() => group.killNow());
  const url = `http://127.0.0.1:${port}/`;
  const timeoutMs = ctx.startTimeoutMs ?? 30_000;
  try {
    await waitForHttp(url, { timeoutMs, gone: () => (group.exitStatus() ? `the target ${group.exitStatus()}` : undefined) });
  } catch (error) {
    const tail = group.tail();
    throw new Error(
      `the target did not start: ${(error as Error).message}\n` +
        `command: ${typeof command === 'string' ? command : command.join(' ')}\n` +
        (tail.length ? `its last output lines:\n${tail.map((line) => `  | ${line}`).join('\n')}` : 'it printed nothing') +
        `\n(full output: ${ctx.logFile})`,
    );
  }
  return group;
}

async function startReference(choice: Extract<TargetChoice, { kind: 'reference' }>, ctx: TargetContext): Promise<RunningTarget> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), STRIPE_API_BASE: ctx.emulatorUrl };
  for (const name of PROFILE_OVERRIDES) delete env[name];
  let storeLabel: string = choice.store;
  if (choice.store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'credit402-conformance-'));
    ctx.teardown.add('the temporary SQLite database', () => rmSync(dir, { recursive: true, force: true }));
    env.CREDIT402_SQLITE_PATH = join(dir, 'conformance.db');
    storeLabel = `sqlite ${env.CREDIT402_SQLITE_PATH}`;
  } else if (choice.store === 'redis') {
    const redis = await provisionRedis(ctx.teardown);
    env.REDIS_URL = redis.url;
    env.CREDIT402_REDIS_PREFIX = redis.keyPrefix;
    storeLabel = `redis ${redis.url} (${redis.source}), keys ${redis.keyPrefix}*`;
  }
  const command = [
    process.execPath, '--import', TSX_LOADER, join(ROOT, 'reference/server/main.ts'),
    '--profile', ctx.profilePath, '--store', choice.store, '--framework', choice.framework, '--host', '127.0.0.1', '--port', String(port),
  ];
  const group = await spawnAndWait(command, env, port, ctx);
  return { url: `http://127.0.0.1:${port}`, description: `reference server (${choice.framework}, store ${storeLabel})`, group };
}

async function startCommand(command: string, ctx: TargetContext): Promise<RunningTarget> {
  const port = await freePort();
  const env = { ...process.env, CREDIT402_PROFILE: ctx.profilePath, PORT: String(port), STRIPE_API_BASE: ctx.emulatorUrl };
  const group = await spawnAndWait(command, env, port, ctx);
  return { url: `http://127.0.0.1:${port}`, description: `\`${command}\` (PORT=${port})`, group };
}

async function checkUrl(url: string): Promise<RunningTarget> {
  try {
    await waitForHttp(`${url}/`, { timeoutMs: 5000 });
  } catch (error) {
    throw new Error(`--target ${url} does not answer: ${(error as Error).message}`);
  }
  return { url, description: url };
}

/** Starts (or checks) the chosen target; everything started is registered on the teardown. */
export function startTarget(choice: TargetChoice, ctx: TargetContext): Promise<RunningTarget> {
  switch (choice.kind) {
    case 'url':
      return checkUrl(choice.url);
    case 'command':
      return startCommand(choice.command, ctx);
    case 'reference':
      return startReference(choice, ctx);
  }
}
