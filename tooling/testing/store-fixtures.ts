// Test helper: one fresh, isolated store per run for every kind the money-checking runs use (conformance, histories, three instances, crash test, fault load), and the place a new kind registers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreConfig } from 'credit402/server';
import { redactUrl } from 'credit402/internal/stores/redact-url';
import { provisionPostgres } from './postgres.ts';
import { provisionRedis } from './redis.ts';
import { provisionRedisCluster } from './redis-cluster.ts';

/** The store of one run, made for it alone. */
export interface ProvisionedStore {
  /** The server's `store` configuration. */
  config: StoreConfig;
  /** The variables that point `credit402 serve --store <serverKind>` at it. */
  env: Record<string, string>;
  /** One line for the run's start-up output (no password). */
  label: string;
  /** For a store over TCP: where it listens, and its configuration reached through a proxy on 127.0.0.1:`port` instead. */
  network?: { host: string; port: number; through(port: number): StoreConfig };
  /** Removes what was made for the run (file, keys, schema, a server started for it). */
  release(): Promise<void>;
}

/** One kind of store the runs can provision. */
export interface StoreFixture {
  /** The name `--store` of the runs takes. */
  kind: string;
  /** The kind `credit402 serve --store` takes (`redis-cluster` is served as `redis`). */
  serverKind: string;
  /** Whether it outlives the server's process (a crash test needs it). */
  durable: boolean;
  /** Whether several server processes can share it (three instances need it). */
  shared: boolean;
  /** Whether it is reached at one TCP address, so that a faulty link can stand in front of it (the fault load needs it). */
  network: boolean;
  provision(): Promise<ProvisionedStore>;
}

/** `url` with its host and port replaced: the same server, reached through a proxy on loopback. */
function throughLoopback(url: URL, port: number): string {
  return Object.assign(new URL(url), { hostname: '127.0.0.1', port: String(port) }).toString();
}

/** How a server uses a run's store: its configuration when the store is reached at `url`, its variables, its label. */
interface RunUse {
  configAt(url: string): StoreConfig;
  env: Record<string, string>;
  label: string;
}

/**
 * A durable, shared kind of store whose server one URL reaches (default port `defaultPort`): `provisionRun` makes the
 * run's place on it, `use` says how a server uses that place, and its configuration through a proxy is the same at
 * the proxy's URL.
 */
function reachedByUrl<R extends { url: string; release(): Promise<void> }>(
  kind: string,
  defaultPort: number,
  provisionRun: () => Promise<R>,
  use: (run: R) => RunUse,
): StoreFixture {
  return {
    kind, serverKind: kind, durable: true, shared: true, network: true,
    async provision() {
      const run = await provisionRun();
      const url = new URL(run.url);
      const { configAt, env, label } = use(run);
      return {
        config: configAt(run.url),
        env,
        label,
        network: { host: url.hostname, port: Number(url.port || defaultPort), through: (port) => configAt(throughLoopback(url, port)) },
        release: () => run.release(),
      };
    },
  };
}

const memory: StoreFixture = {
  kind: 'memory', serverKind: 'memory', durable: false, shared: false, network: false,
  provision: async () => ({ config: { kind: 'memory' }, env: {}, label: 'memory', release: async () => {} }),
};

const sqlite: StoreFixture = {
  kind: 'sqlite', serverKind: 'sqlite', durable: true, shared: true, network: false,
  async provision() {
    const dir = mkdtempSync(join(tmpdir(), 'credit402-store-'));
    const path = join(dir, 'store.db');
    return { config: { kind: 'sqlite', path }, env: { CREDIT402_SQLITE_PATH: path }, label: `sqlite ${path}`, release: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

const redis = reachedByUrl('redis', 6379, provisionRedis, (run) => ({
  configAt: (url) => ({ kind: 'redis', url, keyPrefix: run.keyPrefix }),
  env: { REDIS_URL: run.url, CREDIT402_REDIS_PREFIX: run.keyPrefix },
  label: `redis ${run.url} (${run.source}), keys ${run.keyPrefix}*`,
}));

const redisCluster: StoreFixture = {
  kind: 'redis-cluster', serverKind: 'redis', durable: true, shared: true, network: false,
  async provision() {
    const run = await provisionRedisCluster();
    const nodes = run.nodes.join(',');
    return {
      config: { kind: 'redis', cluster: run.nodes, keyPrefix: run.keyPrefix },
      env: { CREDIT402_REDIS_CLUSTER: nodes, CREDIT402_REDIS_PREFIX: run.keyPrefix },
      label: `redis cluster ${nodes} (${run.source}), keys ${run.keyPrefix}*`,
      release: () => run.release(),
    };
  },
};

const postgres = reachedByUrl('postgres', 5432, provisionPostgres, (run) => ({
  configAt: (url) => ({ kind: 'postgres', url, schema: run.schema }),
  env: { DATABASE_URL: run.url, CREDIT402_PG_SCHEMA: run.schema },
  label: `postgres ${redactUrl(run.url)}, schema ${run.schema}`,
}));

const fixtures: StoreFixture[] = [memory, sqlite, redis, redisCluster, postgres];

/** Adds a kind of store to the runs (its server kind registered with `registerStoreDescriptor` in the server it starts). */
export function registerStoreFixture(fixture: StoreFixture): void {
  if (storeFixture(fixture.kind) !== undefined) throw new Error(`a store fixture of kind ${fixture.kind} is already registered`);
  fixtures.push(fixture);
}

/** The kinds of store the runs know, those that `which` keeps. */
export function storeFixtureKinds(which: (fixture: StoreFixture) => boolean = () => true): string[] {
  return fixtures.filter(which).map((fixture) => fixture.kind);
}

/** The fixture of `kind`, if the runs know it. */
export function storeFixture(kind: string): StoreFixture | undefined {
  return fixtures.find((fixture) => fixture.kind === kind);
}

/** A fresh store of `kind` for one run; throws when no fixture knows the kind. */
export async function provisionStore(kind: string): Promise<ProvisionedStore & { fixture: StoreFixture }> {
  const fixture = storeFixture(kind);
  if (fixture === undefined) throw new Error(`no store fixture of kind ${kind}; the kinds are ${storeFixtureKinds().join(', ')}`);
  return { ...(await fixture.provision()), fixture };
}
