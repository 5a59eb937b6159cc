// The freezing proxy's URL keeps what REDIS_URL says besides the address: the database number, the credentials, the options.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { FreezingProxy } from './freezing-proxy.ts';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const target = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) };

/** `REDIS_URL` on database `db` (the credentials and options as they are). */
function onDatabase(db: number): string {
  const url = new URL(redisUrl);
  url.pathname = `/${db}`;
  return url.href;
}

describe('FreezingProxy.start()', () => {
  it('issue 34: keeps the database number of REDIS_URL, so what goes through the proxy lands in that database (was: database 0)', async () => {
    const proxy = new FreezingProxy(target, onDatabase(5));
    const url = await proxy.start();
    const direct = createClient({ url: onDatabase(5) });
    const proxied = createClient({ url });
    try {
      expect(new URL(url).pathname).toBe('/5');
      await Promise.all([direct.connect(), proxied.connect()]);
      const key = `credit402-freezing-proxy-${randomUUID()}`;
      await proxied.set(key, 'through the proxy', { PX: 60_000 });
      expect(await direct.get(key)).toBe('through the proxy');
      await direct.del(key);
    } finally {
      proxied.destroy();
      direct.destroy();
      await proxy.close();
    }
  });

  it('reads REDIS_URL by default and keeps its credentials and options; another server\'s URL gives the proxy\'s address alone', async () => {
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = 'redis://user:secret@127.0.0.1:6379/3?name=x';
    const proxies = [new FreezingProxy({ host: '127.0.0.1', port: 6379 }), new FreezingProxy({ host: '127.0.0.1', port: 5432 })];
    if (saved === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = saved;
    try {
      const [kept, other] = await Promise.all(proxies.map((proxy) => proxy.start()));
      expect(kept).toMatch(/^redis:\/\/user:secret@127\.0\.0\.1:\d+\/3\?name=x$/);
      expect(kept).not.toContain(':6379');
      expect(other).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  });
});
