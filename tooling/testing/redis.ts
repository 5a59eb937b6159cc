// Test helper: a Redis for a test run (REDIS_URL, else a redis-server started from PATH, else testcontainers) and a per-run key prefix removed after.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createClient } from 'redis';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { startRedisContainer } from './redis-container.ts';

/** The Redis a run uses. */
interface RunRedis {
  url: string;
  /** Every key the run writes starts with this. */
  keyPrefix: string;
  /** Where it came from, for a start-up line. */
  source: string;
  /** Removes the run's keys, then stops the server or container started for the run. */
  release(): Promise<void>;
}

/** The Redis a run on an already running server uses: REDIS_URL, else the local default. */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** The first executable `name` on PATH, if any. */
export function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Resolves when Redis at `url` answers PING; rejects after `timeoutMs`. */
export async function pingRedis(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      await client.close();
      return;
    } catch (error) {
      lastError = error;
      client.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`Redis at ${url} does not answer: ${(lastError as Error | undefined)?.message ?? 'timeout'}`);
}

/** Deletes every key starting with `prefix` (SCAN + UNLINK); returns how many were removed. */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  const client = createClient({ url, socket: { reconnectStrategy: false } });
  client.on('error', () => {});
  await client.connect();
  try {
    let removed = 0;
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) removed += await client.unlink(keys);
    }
    return removed;
  } finally {
    client.destroy();
  }
}

/** Starts `binary` on a free port; resolves to its URL and how to stop it. */
async function startRedisServer(binary: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = `redis://127.0.0.1:${port}`;
  try {
    await pingRedis(url, 10_000);
  } catch (error) {
    await stop();
    throw new Error(`${binary} did not start (${(error as Error).message}); its last output:\n${output}`);
  }
  return { url, stop };
}

/** The first way that works: REDIS_URL, a redis-server from PATH, a testcontainers container. */
async function locateRedis(env: NodeJS.ProcessEnv): Promise<{ url: string; source: string; stop(): Promise<void> }> {
  if (env.REDIS_URL) {
    await pingRedis(env.REDIS_URL, 5000);
    return { url: env.REDIS_URL, source: 'REDIS_URL', stop: async () => {} };
  }
  const binary = onPath('redis-server', env.PATH ?? '');
  if (binary) return { ...(await startRedisServer(binary)), source: `${binary}, started for this run` };
  const container = await startRedisContainer().catch((error: Error) => {
    throw new Error(
      `the Redis store needs a Redis, and none is available:\n` +
        `  1. set REDIS_URL (e.g. redis://127.0.0.1:6379) to a running Redis, or\n` +
        `  2. put redis-server on PATH (e.g. apt-get install redis-server), one is started for the run, or\n` +
        `  3. install testcontainers (npm install --save-dev testcontainers) with a Docker engine running.\n` +
        `testcontainers: ${error.message}`,
    );
  });
  return { url: container.url, source: 'testcontainers', stop: () => container.stop() };
}

/** Provides Redis for a run with a fresh key prefix; `release()` removes the run's keys and stops what was started. */
export async function provisionRedis(env: NodeJS.ProcessEnv = process.env): Promise<RunRedis> {
  const { url, source, stop } = await locateRedis(env);
  const keyPrefix = `credit402-test:${randomBytes(6).toString('hex')}:`;
  return {
    url,
    keyPrefix,
    source,
    async release() {
      try {
        await deleteKeys(url, keyPrefix);
      } finally {
        await stop();
      }
    },
  };
}
