// Starts the reference server of one configuration in its own child process, on a fresh store.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { startChild, type BenchChild } from './child-process.ts';
import type { BenchConfig } from './options.ts';
import type { ServerChildSpec } from './server-child.ts';
import { prepareStore, type PreparedStore } from './stores.ts';

const SETTLE_MS = 250;

/** A reference server under test. */
export interface BenchServer {
  url: string;
  child: BenchChild<{ url: string; pid: number }>;
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
}

/** Starts `config`'s reference server; on failure nothing is left running. */
export async function startBenchServer(config: BenchConfig, options: BenchServerOptions): Promise<BenchServer> {
  const label = options.label ?? config.name;
  const store = await prepareStore(config.store, options.runId, label);
  const spec: ServerChildSpec = { framework: config.framework, store: store.config, stripeApi: options.stripeApiUrl };
  const nodeFlags: string[] = [];
  if (options.cpuProfDir !== undefined) {
    // One directory per server: every thread (tsx's loader thread too) writes its own CPU.*.cpuprofile there.
    const dir = resolve(options.cpuProfDir, label);
    mkdirSync(dir, { recursive: true });
    nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  let child: BenchChild<{ url: string; pid: number }>;
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
