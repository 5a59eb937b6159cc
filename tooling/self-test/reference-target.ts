// The reference server as a kit target on a chosen store, framework and gating: its environment and `--target-cmd`, shared by `npm run conformance` and the history runs.
import { bunTargetCommand } from '../testing/bun.ts';
import { targetCommand } from '../testing/kit.ts';
import { provisionStore } from '../testing/store-fixtures.ts';

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
  const provisioned = await provisionStore(store);
  Object.assign(env, provisioned.env);
  const { label, fixture } = provisioned;
  // The kit sets CREDIT402_PROFILE, PORT and STRIPE_API_BASE; the shell expands them.
  // Express 4 comes from the repository's `express4` alias, through a self-test entry (the library ships no Express 4 import).
  const [entry, name] = framework === 'express4' ? ['tooling/self-test/serve-express4.ts', 'express'] : ['reference/cli.ts', framework];
  const serve = runtime === 'bun' ? bunTargetCommand : targetCommand;
  const command = `${serve(entry, ['serve', '--store', fixture.serverKind, '--framework', name, '--gating', gating, '--host', '127.0.0.1', '--conformance-control'])} --profile "$CREDIT402_PROFILE" --port "$PORT"`;
  return { env, command, label, release: () => provisioned.release() };
}
