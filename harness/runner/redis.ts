// Redis for a reference run: REDIS_URL, else a redis-server started from PATH, else testcontainers; a per-run key prefix removed after.
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createClient } from 'redis';
import { freePort } from './free-port.ts';
import { ProcessGroup } from './process-group.ts';
import { startRedisContainer } from './redis-container.ts';
import type { Teardown } from './teardown.ts';

/** The Redis a run uses. */
export interface RunRedis {
  url: string;
  /** Every key the target writes starts with this (CREDIT402_REDIS_PREFIX). */
  keyPrefix: string;
  /** Where it came from, for the start-up line. */
  source: string;
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

async function startRedisServer(binary: string, teardown: Teardown): Promise<string> {
  const port = await freePort();
  const server = new ProcessGroup({
    command: [binary, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    env: process.env,
  });
  teardown.add('redis-server', () => server.stop());
  teardown.lastResort(() => server.killNow());
  const url = `redis://127.0.0.1:${port}`;
  try {
    await pingRedis(url, 10_000);
  } catch (error) {
    throw new Error(`${binary} did not start (${(error as Error).message}); its last output:\n${server.tail().join('\n')}`);
  }
  return url;
}

/** The first way that works: REDIS_URL, a redis-server from PATH, a testcontainers container. */
async function locateRedis(teardown: Teardown, env: NodeJS.ProcessEnv): Promise<{ url: string; source: string }> {
  if (env.REDIS_URL) {
    await pingRedis(env.REDIS_URL, 5000);
    return { url: env.REDIS_URL, source: 'REDIS_URL' };
  }
  const binary = onPath('redis-server', env.PATH ?? '');
  if (binary) return { url: await startRedisServer(binary, teardown), source: `${binary}, started for this run` };
  const container = await startRedisContainer().catch((error: Error) => {
    throw new Error(
      `--store redis needs a Redis, and none is available:\n` +
        `  1. set REDIS_URL (e.g. redis://127.0.0.1:6379) to a running Redis, or\n` +
        `  2. put redis-server on PATH (e.g. apt-get install redis-server), the runner starts one, or\n` +
        `  3. install testcontainers (npm install --save-dev testcontainers) with a Docker engine running.\n` +
        `testcontainers: ${error.message}`,
    );
  });
  teardown.add('the Redis container', () => container.stop());
  return { url: container.url, source: 'testcontainers' };
}

/** Provides Redis for the run and registers its clean-up (the run's keys, then the server it started). */
export async function provisionRedis(teardown: Teardown, env: NodeJS.ProcessEnv = process.env): Promise<RunRedis> {
  const { url, source } = await locateRedis(teardown, env);
  const keyPrefix = `credit402-conformance:${randomBytes(6).toString('hex')}:`;
  teardown.add(`Redis keys ${keyPrefix}*`, async () => {
    await deleteKeys(url, keyPrefix);
  });
  return { url, keyPrefix, source };
}
