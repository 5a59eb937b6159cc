// Test helper: a gate over a memory store where one client already holds 10000 usd units, with readers of its balance and of its log's resources.
import { createGate, type Gate, type GateOptions } from 'credit402/gate';
import type { RouteConfig } from 'credit402/protocol';
import { MemoryStore } from 'credit402/stores';
import { FakeProcessor } from './fake-processor.ts';
import { TEST_GATE_KEYS } from './test-gate-keys.ts';

/** The funded client's gate, its store, and what the store says of the client now. */
export interface FundedGate {
  gate: Gate;
  store: MemoryStore;
  balance(): Promise<number | undefined>;
  /** The client's transaction log: a deduction's resource, else the record's type. */
  resources(): Promise<Array<string | undefined>>;
}

/** A gate (table `routes` when given; a fake processor; errors not logged) over a memory store where `client` has 10000 usd units. */
export async function fundedGate(client: string, routes?: Record<string, RouteConfig>, options: Partial<GateOptions> = {}): Promise<FundedGate> {
  const store = new MemoryStore();
  await store.addBalance(client, 'usd', 10_000);
  const gate = createGate({ ...TEST_GATE_KEYS, store, processor: new FakeProcessor(), routes, onError: () => {}, ...options });
  return {
    gate,
    store,
    balance: async () => (await store.getClient(client))?.balances.usd,
    resources: async () => ((await store.listTransactions?.(client)) ?? []).map((record) => ('resource' in record ? record.resource : record.type)),
  };
}
