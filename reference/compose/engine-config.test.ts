// The reference server's store configuration: each kind from CREDIT402_STORE and its variables, and the checks on the Postgres and Redis Cluster fields.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { loadServerConfig } from './engine-config.ts';

describe('server configuration: the store', () => {
  it('reads every store kind from CREDIT402_STORE', () => {
    expect(loadServerConfig({ env: { CREDIT402_STORE: 'memory' } }).store).toEqual({ kind: 'memory' });
    expect(loadServerConfig({ env: { CREDIT402_STORE: 'sqlite', CREDIT402_SQLITE_PATH: 'data/x.db' } }).store).toEqual({ kind: 'sqlite', path: 'data/x.db' });
    expect(loadServerConfig({ env: { CREDIT402_STORE: 'redis', REDIS_URL: 'redis://r:6379' } }).store).toEqual({ kind: 'redis', url: 'redis://r:6379' });
    expect(loadServerConfig({ env: { CREDIT402_STORE: 'postgres' } }).store).toEqual({ kind: 'postgres' });
    expect(loadServerConfig({ env: { CREDIT402_STORE: 'redis', REDIS_URL: 'redis://r:6379', CREDIT402_REDIS_CLUSTER: 'a:7000, b:7001' } }).store)
      .toEqual({ kind: 'redis', cluster: ['a:7000', 'b:7001'] });
  });

  it('takes the Postgres server from DATABASE_URL and the schema from CREDIT402_PG_SCHEMA', () => {
    const env = { CREDIT402_STORE: 'postgres', DATABASE_URL: 'postgres://u@db:5432/app', CREDIT402_PG_SCHEMA: 'billing' };
    expect(loadServerConfig({ env }).store).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/app', schema: 'billing' });
    expect(loadServerConfig({ overrides: { store: { kind: 'postgres', url: 'postgresql://db/app' } } }).store).toEqual({ kind: 'postgres', url: 'postgresql://db/app' });
  });

  it('refuses an unknown kind, a schema that is not a lowercase identifier and a URL that is not postgres://', () => {
    expect(codeOf(() => loadServerConfig({ env: { CREDIT402_STORE: 'mysql' } }))).toBe('ERR_SERVER_CONFIG');
    for (const schema of ['Billing', 'bill-ing', 'pg_billing', '']) {
      expect(codeOf(() => loadServerConfig({ overrides: { store: { kind: 'postgres', schema } } })), schema).toBe('ERR_SERVER_CONFIG');
    }
    expect(() => loadServerConfig({ env: { CREDIT402_STORE: 'postgres', DATABASE_URL: 'mysql://db/app' } })).toThrow(/postgres:\/\//);
    expect(() => loadServerConfig({ env: { CREDIT402_STORE: 'postgres', CREDIT402_PG_SCHEMA: 'Billing' } })).toThrow(/CREDIT402_PG_SCHEMA/);
  });

  it('takes a log retention for the sqlite and postgres stores only, a positive whole number of seconds', () => {
    expect(loadServerConfig({ overrides: { store: { kind: 'sqlite', path: 'x.db', transactionTtlSeconds: 60 } } }).store).toMatchObject({ transactionTtlSeconds: 60 });
    for (const transactionTtlSeconds of [0, -1, 1.5, '60']) {
      expect(codeOf(() => loadServerConfig({ overrides: { store: { kind: 'sqlite', path: 'x.db', transactionTtlSeconds } as never } })), String(transactionTtlSeconds)).toBe('ERR_SERVER_CONFIG');
    }
    expect(() => loadServerConfig({ overrides: { store: { kind: 'redis', transactionTtlSeconds: 60 } as never } })).toThrow(/sqlite and postgres/);
  });

  it('refuses a Redis cluster that is not a list of host:port or redis:// URLs, or beside url', () => {
    expect(loadServerConfig({ overrides: { store: { kind: 'redis', cluster: ['redis://a:7000', 'b:7001'] } } }).store).toEqual({ kind: 'redis', cluster: ['redis://a:7000', 'b:7001'] });
    for (const cluster of [[], ['a'], ['http://a:7000'], 'a:7000']) {
      expect(codeOf(() => loadServerConfig({ overrides: { store: { kind: 'redis', cluster } as never } })), String(cluster)).toBe('ERR_SERVER_CONFIG');
    }
    expect(() => loadServerConfig({ overrides: { store: { kind: 'redis', url: 'redis://a:6379', cluster: ['b:7001'] } } })).toThrow(/exclude each other/);
  });

  it('takes the Redis log bounds from the config file, CREDIT402_REDIS_* variables or both, and hands them to the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'credit402-config-'));
    try {
      const configPath = join(dir, 'config.json');
      writeFileSync(configPath, JSON.stringify({ store: { kind: 'redis', keyPrefix: 'x:', logRetentionSeconds: 7200, maxTransactionsPerClient: 50 } }));
      expect(loadServerConfig({ configPath }).store).toEqual({ kind: 'redis', keyPrefix: 'x:', logRetentionSeconds: 7200, maxTransactionsPerClient: 50 });
      // A variable wins over the file, alone (the file's store) or with CREDIT402_STORE (the file's other bound stays).
      expect(loadServerConfig({ configPath, env: { CREDIT402_REDIS_LOG_RETENTION_SECONDS: '60' } }).store)
        .toEqual({ kind: 'redis', keyPrefix: 'x:', logRetentionSeconds: 60, maxTransactionsPerClient: 50 });
      expect(loadServerConfig({ configPath, env: { CREDIT402_STORE: 'redis', CREDIT402_REDIS_MAX_TRANSACTIONS_PER_CLIENT: ' 10 ' } }).store)
        .toEqual({ kind: 'redis', logRetentionSeconds: 7200, maxTransactionsPerClient: 10 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const env = { CREDIT402_STORE: 'redis', CREDIT402_REDIS_LOG_RETENTION_SECONDS: '120', CREDIT402_REDIS_MAX_TRANSACTIONS_PER_CLIENT: '5' };
    const store = loadServerConfig({ env }).store;
    expect(store).toEqual({ kind: 'redis', logRetentionSeconds: 120, maxTransactionsPerClient: 5 });
    // build-store passes them on: the Redis store validates them before it connects (a bad one is ERR_REDIS_OPTION, no connection).
    const { buildStore } = await import('./build-store.ts');
    const tooLong = { kind: 'redis' as const, logRetentionSeconds: Number.MAX_SAFE_INTEGER };
    await expect(buildStore(tooLong)).rejects.toMatchObject({ code: 'ERR_REDIS_OPTION', message: expect.stringMatching(/logRetentionSeconds/) });
    await expect(buildStore({ kind: 'redis', maxTransactionsPerClient: 1.5 })).rejects.toMatchObject({ code: 'ERR_REDIS_OPTION', message: expect.stringMatching(/maxTransactionsPerClient/) });
  });

  it('refuses Redis log bounds that are not positive whole numbers, or on another store, with ERR_SERVER_CONFIG naming the variable', () => {
    for (const value of [0, -1, 1.5, '60', Number.MAX_SAFE_INTEGER]) {
      const store = { kind: 'redis', logRetentionSeconds: value } as never;
      expect(codeOf(() => loadServerConfig({ overrides: { store } })), String(value)).toBe('ERR_SERVER_CONFIG');
    }
    for (const value of [0, -1, 1.5, '60', 2 ** 53]) {
      const store = { kind: 'redis', maxTransactionsPerClient: value } as never;
      expect(codeOf(() => loadServerConfig({ overrides: { store } })), String(value)).toBe('ERR_SERVER_CONFIG');
    }
    for (const text of ['0', 'abc', '1.5', '-3', '', '99999999999999999999']) {
      const env = { CREDIT402_STORE: 'redis', CREDIT402_REDIS_LOG_RETENTION_SECONDS: text };
      expect(() => loadServerConfig({ env }), text).toThrow(/CREDIT402_REDIS_LOG_RETENTION_SECONDS/);
      expect(codeOf(() => loadServerConfig({ env })), text).toBe('ERR_SERVER_CONFIG');
    }
    expect(() => loadServerConfig({ env: { CREDIT402_STORE: 'redis', CREDIT402_REDIS_MAX_TRANSACTIONS_PER_CLIENT: 'many' } })).toThrow(/CREDIT402_REDIS_MAX_TRANSACTIONS_PER_CLIENT/);
    expect(() => loadServerConfig({ env: { CREDIT402_STORE: 'sqlite', CREDIT402_REDIS_LOG_RETENTION_SECONDS: '60' } })).toThrow(/applies to the redis store, not sqlite/);
    expect(() => loadServerConfig({ overrides: { store: { kind: 'postgres', maxTransactionsPerClient: 5 } as never } })).toThrow(/applies to the redis store, not postgres/);
  });
});

describe('server configuration: shutdownTimeoutMs', () => {
  it('takes an integer number of milliseconds from 1 to 3600000, and refuses anything else with ERR_SERVER_CONFIG', () => {
    expect(loadServerConfig({ overrides: { shutdownTimeoutMs: 250 } }).shutdownTimeoutMs).toBe(250);
    expect(loadServerConfig().shutdownTimeoutMs).toBeUndefined();
    for (const bad of [0, -1, 1.5, 3_600_001, '100']) {
      expect(codeOf(() => loadServerConfig({ overrides: { shutdownTimeoutMs: bad as number } }))).toBe('ERR_SERVER_CONFIG');
    }
  });
});
