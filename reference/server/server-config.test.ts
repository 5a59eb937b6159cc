// The reference server's store configuration: each kind from CREDIT402_STORE and its variables, and the checks on the Postgres and Redis Cluster fields.
import { describe, expect, it } from 'vitest';
import { codeOf } from '../testing/error-code.ts';
import { loadServerConfig } from './server-config.ts';

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
});
