// Micro-benchmark of the engine alone: µs per paid `gate.handle` on the memory store, no HTTP (`tsx bench/gate-micro.ts [N]`).
import { createGate } from '../reference/gate/gate.ts';
import { MemoryStore } from '../reference/stores/memory/memory-store.ts';
import { FakeProcessor } from 'credit402-tooling/testing/fake-processor';

const count = Number(process.argv[2] ?? 200_000);
const store = new MemoryStore();
const clientId = 'a'.repeat(64);
await store.addBalance(clientId, 'usd', 9_000_000_000);
const gate = createGate({ stripePublishableKey: 'pk_test_x', serverSecret: 'x'.repeat(32), store, processor: new FakeProcessor(), routes: { 'GET /api/nodesc': { amount: 1 } } });
const paymentHeader = Buffer.from(JSON.stringify({ clientId })).toString('base64');
const request = { method: 'GET', url: '/api/nodesc', paymentHeader };

/** Runs `n` paid requests, 50 at a time as 50 connections would; resolves to µs per request. */
async function run(n: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let done = 0; done < n; done += 50) {
    await Promise.all(Array.from({ length: 50 }, async () => {
      const decision = await gate.handle(request);
      if (decision.action === 'serve') await decision.settle({ status: 200 });
    }));
  }
  return Number(process.hrtime.bigint() - started) / 1000 / n;
}

await run(count / 4);
console.log(`gate.handle, paid, memory store: ${(await run(count)).toFixed(2)} µs per request`);
