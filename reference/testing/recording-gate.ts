// A gate over a memory store and a processor that record every call: for tests that prove a request had no effect.
import { createGate, type Gate } from '../gate/index.ts';
import type { RouteConfig } from '../protocol/types.ts';
import type { Processor } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory-store.ts';

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
  const refuse = (name: string) => (): never => {
    calls.push(`processor.${name}`);
    throw new Error('the processor must not be called in this test');
  };
  const processor: Processor = { getCardFingerprint: refuse('getCardFingerprint'), findOrCreateCustomer: refuse('findOrCreateCustomer'), charge: refuse('charge') };
  return { gate: createGate({ stripePublishableKey: 'pk_test_x', serverSecret: 'x'.repeat(32), store, processor, routes, onError: () => {} }), calls };
}
