// The reference server as a kit target on a chosen store, framework and gating: its environment and `--target-cmd`, shared by `npm run conformance` and the history runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bunTargetCommand } from '../testing/bun.ts';
import { targetCommand } from '../testing/kit.ts';
import { redactUrl } from '../stores/redact-url.ts';
import { provisionPostgres } from '../testing/postgres.ts';
import { provisionRedis } from '../testing/redis.ts';
import { provisionRedisCluster } from '../testing/redis-cluster.ts';

export const STORES = ['sqlite', 'redis', 'memory', 'postgres', 'redis-cluster'] as const;
export const FRAMEWORKS = ['fastify', 'express', 'express4', 'http', 'hono'] as const;
export const GATINGS = ['table', 'per-route'] as const;
/** The runtimes the reference server runs under: Node, or Bun (the `bun` devDependency; the Hono server only). */
export const RUNTIMES = ['node', 'bun'] as const;

/** Variables that would make the reference server ignore the profile the kit hands it. */
const PROFILE_OVERRIDES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'CREDIT402_SERVER_SECRET', 'CREDIT402_STORE', 'CREDIT402_FRAMEWORK', 'CREDIT402_GATING', 'HOST'];

/**
 * The environment and `--target-cmd` of the reference server on the chosen store, framework, gating and runtime;
 * `release` removes what was made for the run. Under Bun (the Hono server only) the SQLite store does not run:
 * better-sqlite3 is a Node addon.
 */
export async function referenceTarget(store: (typeof STORES)[number], framework: (typeof FRAMEWORKS)[number], gating: (typeof GATINGS)[number], runtime: (typeof RUNTIMES)[number] = 'node') {
  if (runtime === 'bun' && framework !== 'hono') throw new Error(`--runtime bun runs the Hono server only (--framework hono), not ${framework}`);
  if (runtime === 'bun' && store === 'sqlite') throw new Error('--runtime bun cannot run the SQLite store: better-sqlite3 is a Node addon, which Bun does not load; use --store memory, redis or postgres');
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of PROFILE_OVERRIDES) delete env[name];
  const releases: Array<() => Promise<void> | void> = [];
  let label: string = store;
  if (store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'credit402-conformance-'));
    releases.push(() => rmSync(dir, { recursive: true, force: true }));
    env.CREDIT402_SQLITE_PATH = join(dir, 'conformance.db');
    label = `sqlite ${env.CREDIT402_SQLITE_PATH}`;
  } else if (store === 'redis') {
    const redis = await provisionRedis();
    releases.push(() => redis.release());
    env.REDIS_URL = redis.url;
    env.CREDIT402_REDIS_PREFIX = redis.keyPrefix;
    label = `redis ${redis.url} (${redis.source}), keys ${redis.keyPrefix}*`;
  } else if (store === 'redis-cluster') {
    const cluster = await provisionRedisCluster();
    releases.push(() => cluster.release());
    env.CREDIT402_REDIS_CLUSTER = cluster.nodes.join(',');
    env.CREDIT402_REDIS_PREFIX = cluster.keyPrefix;
    label = `redis cluster ${env.CREDIT402_REDIS_CLUSTER} (${cluster.source}), keys ${cluster.keyPrefix}*`;
  } else if (store === 'postgres') {
    const postgres = await provisionPostgres();
    releases.push(() => postgres.release());
    env.DATABASE_URL = postgres.url;
    env.CREDIT402_PG_SCHEMA = postgres.schema;
    label = `postgres ${redactUrl(postgres.url)}, schema ${postgres.schema}`;
  }
  // The kit sets CREDIT402_PROFILE, PORT and STRIPE_API_BASE; the shell expands them.
  // Express 4 comes from the repository's `express4` alias, through a self-test entry (the library ships no Express 4 import).
  const [entry, name] = framework === 'express4' ? ['reference/self-test/serve-express4.ts', 'express'] : ['reference/cli.ts', framework];
  const serve = runtime === 'bun' ? bunTargetCommand : targetCommand;
  const command = `${serve(entry, ['serve', '--store', store === 'redis-cluster' ? 'redis' : store, '--framework', name, '--gating', gating, '--host', '127.0.0.1', '--conformance-control'])} --profile "$CREDIT402_PROFILE" --port "$PORT"`;
  return { env, command, label, release: async () => { for (const release of releases.reverse()) await release(); } };
}
