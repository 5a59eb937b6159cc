// Tests of reconciliation against the Stripe emulator: drift found by a dry run, credited once by a real run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { StripeProcessor } from '../processor/stripe-processor.ts';
import { topUpMetadata } from '../processor/top-up-metadata.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import type { Store } from '../stores/store.ts';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { type Drift, formatReport, reconcile } from './reconcile.ts';

describe('reconcile', () => {
  let emulator: RunningEmulator;
  let processor: StripeProcessor;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    processor = new StripeProcessor({ secretKey: 'sk_test_reconcile', api: { host: '127.0.0.1', port: emulator.port, protocol: 'http' } });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  /** Charges a top-up of `units` for `clientId` the way the gate does; resolves the PaymentIntent id. */
  async function charge(clientId: string, units: number, metadata = topUpMetadata(clientId, units)): Promise<string> {
    const paymentMethodId = await createCardPaymentMethod(emulator.url);
    const customerId = await processor.findOrCreateCustomer(clientId, paymentMethodId);
    const result = await processor.charge({
      amountCents: Math.ceil(units / 100), currency: 'usd', paymentMethodId, customerId,
      description: 'credit402 top-up for /reconcile', idempotencyKey: `reconcile-${paymentMethodId}`, metadata,
    });
    return result.id;
  }

  it('CR-14.10 finds uncredited top-ups across pages in a dry run, credits them once, then finds no drift', async () => {
    const store = new MemoryStore();
    const alice = 'a'.repeat(64);
    const bob = 'b'.repeat(64);
    const credited = await charge(alice, 50_000);
    await store.creditTopUp({ clientId: alice, currency: 'usd', amount: 50_000, paymentIntentId: credited });
    await charge(bob, 60_001);
    await charge(bob, 50_000, {});
    await charge(bob, 50_000, { credit402_client_id: bob, credit402_top_up_units: '9999999900' });
    for (let i = 0; i < 100; i++) await charge(alice, 50_000);
    await store.creditTopUp({ clientId: alice, currency: 'usd', amount: 1, paymentIntentId: 'pi_unrelated' });

    const dry = await reconcile({ processor, store, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, seen: 102, alreadyCredited: 1, units: 60_001 + 100 * 50_000 });
    expect(dry.credited).toHaveLength(101);
    expect(await store.getClient(bob)).toBeNull();

    const run = await reconcile({ processor, store });
    expect(run).toMatchObject({ dryRun: false, seen: 102, alreadyCredited: 1, units: dry.units });
    expect(await store.getClient(bob)).toMatchObject({ balances: { usd: 60_001 }, topUps: 1 });
    expect(await store.getClient(alice)).toMatchObject({ balances: { usd: 101 * 50_000 + 1 }, topUps: 102 });

    const again = await reconcile({ processor, store, dryRun: true });
    expect(again).toMatchObject({ seen: 102, alreadyCredited: 102, credited: [], units: 0 });
    expect(formatReport(again)).toMatch(/would credit:\s+0 \(0 units\)/);
    expect(formatReport(dry)).not.toContain(bob);
  }, 30_000);

  it('CR-14.13 leaves top-ups charged under another store id uncredited and lists them, in a dry run and a run', async () => {
    const store = new MemoryStore({ storeId: 'store-now' });
    const [dana, erin] = ['d'.repeat(64), 'e'.repeat(64)];
    const before = await charge(dana, 50_000, topUpMetadata(dana, 50_000, 'store-before'));
    await charge(erin, 50_000, topUpMetadata(erin, 50_000, 'store-now'));
    await charge(erin, 50_000);
    const since = new Date(Date.now() - 60_000);
    const dry = await reconcile({ processor, store, dryRun: true, since });
    // The other tests' top-ups (no store id: made as before PaymentIntents named their store) are credited too.
    const of = (drifts: Drift[], clientId: string) => drifts.filter((drift) => drift.clientId === clientId);
    expect(dry.otherStore).toEqual([{ paymentIntentId: before, clientId: dana, units: 50_000 }]);
    expect([of(dry.credited, dana), of(dry.credited, erin)].map((drifts) => drifts.length)).toEqual([0, 2]);
    expect(formatReport(dry)).toMatch(/of another store:\s+1 /);
    const run = await reconcile({ processor, store, since });
    expect(run.otherStore).toEqual(dry.otherStore);
    expect(of(run.credited, erin)).toHaveLength(2);
    expect(await store.getClient(dana)).toBeNull();
    expect(await store.getClient(erin)).toMatchObject({ balances: { usd: 100_000 }, topUps: 2 });
  });

  it('looks only at PaymentIntents created since the given time', async () => {
    const store = new MemoryStore();
    await charge('c'.repeat(64), 50_000);
    const report = await reconcile({ processor, store, since: new Date(Date.now() + 60_000) });
    expect(report).toMatchObject({ seen: 0, credited: [] });
  });

  it('CR-14.10 refuses to look further back than the store keeps credited markers', async () => {
    const store: Store = Object.assign(new MemoryStore(), { creditRetentionMs: 7 * 24 * 3600 * 1000 });
    await expect(reconcile({ processor, store, since: new Date(Date.now() - 30 * 24 * 3600 * 1000) })).rejects.toThrow(RangeError);
    const report = await reconcile({ processor, store, dryRun: true });
    expect(Date.parse(report.since)).toBeGreaterThan(Date.now() - 7 * 24 * 3600 * 1000);
  });
});
