// Tests of Redis provisioning: a redis-server from PATH is started and stopped, run keys are removed, missing Redis is explained.
import { describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { deleteKeys, onPath, provisionRedis } from './redis.ts';

describe.skipIf(!onPath('redis-server', process.env.PATH ?? ''))('provisionRedis with redis-server on PATH', () => {
  it('starts a private redis-server, hands out a per-run prefix, and removes keys and server afterwards', async () => {
    const { REDIS_URL: _, ...env } = process.env;
    const redis = await provisionRedis(env);
    expect(redis.keyPrefix).toMatch(/^credit402-test:[0-9a-f]{12}:$/);
    expect(redis.source).toMatch(/redis-server, started for this run/);
    const client = createClient({ url: redis.url });
    await client.connect();
    await client.set(`${redis.keyPrefix}client:a`, '1');
    await client.set('other:key', '1');
    expect(await deleteKeys(redis.url, redis.keyPrefix)).toBe(1);
    expect(await client.get('other:key')).toBe('1');
    await client.set(`${redis.keyPrefix}client:b`, '1');
    client.destroy();
    await redis.release();
    const after = createClient({ url: redis.url, socket: { reconnectStrategy: false, connectTimeout: 500 } });
    after.on('error', () => {});
    await expect(after.connect()).rejects.toThrow();
  });
});

describe('provisionRedis without any Redis', () => {
  it('names the three ways to provide one', async () => {
    await expect(provisionRedis({ PATH: '/nonexistent' })).rejects.toThrow(
      /set REDIS_URL[\s\S]*redis-server on PATH[\s\S]*install testcontainers[\s\S]*testcontainers: the testcontainers package is not installed/,
    );
  });
});
