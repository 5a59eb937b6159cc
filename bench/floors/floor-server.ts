// Starts one floor in its own child process on a fresh store (temp SQLite file, Redis prefix, Postgres schema), funded.
import { randomBytes } from 'node:crypto';
import { startChild, type BenchChild } from '../child-process.ts';
import { cpuProfFlags } from '../cpu-prof.ts';
import { prepareStore } from '../stores.ts';
import type { FloorChildSpec } from './floor-child.ts';
import type { FloorDef } from './floors.ts';

/** As the reference's funded client: the balance never runs out during a run. */
const FLOOR_BALANCE = 9_000_000_000;

/** A running floor and the client it funded. */
export interface FloorServer {
  name: string;
  url: string;
  clientId: string;
  child: BenchChild<{ url: string; pid: number }>;
  /** Stops the child, then removes the store's data. */
  close(): Promise<void>;
}

/** Starts `floor`; on failure nothing is left running. */
export async function startFloor(floor: FloorDef, options: { runId: string; cpuProfDir?: string }): Promise<FloorServer> {
  const store = await prepareStore(floor.store, options.runId, floor.name);
  const clientId = randomBytes(32).toString('hex');
  const spec: FloorChildSpec = { framework: floor.framework, store: store.config, clientId, balance: FLOOR_BALANCE };
  let child: BenchChild<{ url: string; pid: number }>;
  try {
    child = await startChild('bench/floors/floor-child.ts', [JSON.stringify(spec)], { nodeFlags: cpuProfFlags(options.cpuProfDir, floor.name) });
  } catch (error) {
    await store.cleanup();
    throw error;
  }
  return {
    name: floor.name,
    url: child.ready.url,
    clientId,
    child,
    async close() {
      try {
        await child.stop();
      } finally {
        await store.cleanup();
      }
    },
  };
}
