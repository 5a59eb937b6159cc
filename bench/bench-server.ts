// Starts the reference server of one configuration in its own child process, on a fresh store.
import { startChild, type BenchChild } from './child-process.ts';
import { cpuProfFlags } from './cpu-prof.ts';
import type { BenchConfig } from './options.ts';
import type { ServerChildSpec } from './server-child.ts';
import { prepareStore, type PreparedStore } from './stores.ts';

const SETTLE_MS = 250;

/** What a server child announces: its URL, pid and its store's creditRetentionMs (null: the store has none). */
interface ServerReady {
  url: string;
  pid: number;
  creditRetentionMs: number | null;
}

/** A reference server under test. */
export interface BenchServer {
  url: string;
  child: BenchChild<ServerReady>;
  store: PreparedStore;
  /** Waits for abandoned requests, stops the child, then removes the store's data. */
  close(): Promise<void>;
}

/** Where and how to start a server. */
interface BenchServerOptions {
  runId: string;
  stripeApiUrl: string;
  /** Profile the child with node --cpu-prof into `<this directory>/<label>/`. */
  cpuProfDir?: string;
  /** Distinguishes the store and profile of several servers of one configuration. */
  label?: string;
  /** The SQLite or Postgres store's log retention (`store.transactionTtlSeconds`), for the soak; other stores ignore it. */
  transactionTtlSeconds?: number;
}

/** Starts `config`'s reference server; on failure nothing is left running. */
export async function startBenchServer(config: BenchConfig, options: BenchServerOptions): Promise<BenchServer> {
  const label = options.label ?? config.name;
  const store = await prepareStore(config.store, options.runId, label);
  const retained = options.transactionTtlSeconds !== undefined && (store.config.kind === 'sqlite' || store.config.kind === 'postgres');
  const storeConfig = retained ? { ...store.config, transactionTtlSeconds: options.transactionTtlSeconds } : store.config;
  const spec: ServerChildSpec = { framework: config.framework, store: storeConfig, stripeApi: options.stripeApiUrl };
  const nodeFlags = cpuProfFlags(options.cpuProfDir, label);
  let child: BenchChild<ServerReady>;
  try {
    child = await startChild('bench/server-child.ts', [JSON.stringify(spec)], { nodeFlags });
  } catch (error) {
    await store.cleanup();
    throw error;
  }
  return {
    url: child.ready.url,
    child,
    store,
    async close() {
      try {
        // Requests the load generator abandoned at its deadline are still in the gate: let them finish.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        await child.stop();
      } finally {
        await store.cleanup();
      }
    },
  };
}
