// A gate over a memory store and a processor that record every call: for tests that prove a request had no effect.
import { createGate, type Gate } from 'credit402/gate';
import type { RouteConfig } from 'credit402/protocol';
import { MemoryStore } from 'credit402/stores';
import { untouchableProcessor } from './untouchable-processor.ts';
import { TEST_GATE_KEYS } from './test-gate-keys.ts';

/** A gate whose store and processor record every call (`store.deductBalance`, `processor.charge`…); the processor refuses all. */
export async function recordingGate(
  client: string,
  balance: number,
  routes: Record<string, RouteConfig>,
): Promise<{ gate: Gate; calls: string[] }> {
  const calls: string[] = [];
  const memory = new MemoryStore();
  await memory.addBalance(client, 'usd', balance);
  const store = new Proxy(memory, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`store.${String(name)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const processor = untouchableProcessor('in this test', (method) => calls.push(`processor.${method}`));
  return { gate: createGate({ ...TEST_GATE_KEYS, store, processor, routes, onError: () => {} }), calls };
}
