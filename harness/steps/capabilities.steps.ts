// Steps of the optional capabilities (PROFILE.md, Capabilities): store outages on demand and the client's records.
import assert from 'node:assert/strict';
import { defineParameterType, type DataTable } from '@cucumber/cucumber';
import { expectBalanceReconciles, expectClientRecord, expectRecords, expectServiceUnavailable, type ExpectedRecord } from '../world/capability-judge.ts';
import { firstOf, RequirementFailure } from '../world/check.ts';
import type { StoreOperation } from '../world/control-routes.ts';
import { answered, describeExchange, kindOf } from '../world/judge.ts';
import { SERVICE_UNAVAILABLE } from '../world/outcome-ids.ts';
import { DEFAULT_MAX_STORE_WAIT_MS } from '../world/parameters.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Given, Then, When } from './define.ts';

/** The store failures a scenario arms and lifts: the requirements it judges through them. */
const STORE_FAULT = firstOf(['CR-6.6', 'CR-7.21', 'CR-7.22', 'CR-8.12', 'CR-11.9', 'CR-13.20', 'CR-13.30', 'CR-14.3'], 'CR-13.20');
/** The client's records (the records capability): when they are written (CR-11.8), their fields (CR-11.7, which applies CR-13.3 and CR-13.4). */
const RECORDS = firstOf(['CR-11.8', 'CR-11.7'], 'CR-11.8');

defineParameterType({
  name: 'storeOperation',
  regexp: /deductBalance|addBalance|ensureClient|getClient|creditTopUp|recordTransaction|listTransactions/,
  transformer: (text: string): StoreOperation => text as StoreOperation,
});

Given("the store fails every {storeOperation} for the card's client", STORE_FAULT, async function (this: ConformanceWorld, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation });
});

Given("the store fails every {storeOperation} for the card's client after the first", STORE_FAULT, async function (this: ConformanceWorld, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation, skip: 1 });
});

Given("the store loses the reply of the next {storeOperation} for the card's client", STORE_FAULT, async function (this: ConformanceWorld, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation, count: 1, replyLost: true });
});

Given("the store loses the replies of the next {int} {storeOperation} calls for the card's client", STORE_FAULT, async function (this: ConformanceWorld, count: number, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation, count, replyLost: true });
});

Given(
  "the store holds the next {storeOperation} for the card's client {int} ms, then lets it proceed",
  STORE_FAULT,
  async function (this: ConformanceWorld, operation: StoreOperation, delayMs: number) {
    const bound = this.profile.maxStoreWaitMs ?? DEFAULT_MAX_STORE_WAIT_MS;
    assert.ok(delayMs > bound + 1_000, `the hold (${delayMs} ms) must outlast the profile's maxStoreWaitMs (${bound} ms) by far: the scenario is wrong`);
    await this.capabilities.arm({ clientId: this.card().clientId, operation, count: 1, delayMs, proceed: true });
  },
);

When("the store's hold is over", STORE_FAULT, async function (this: ConformanceWorld) {
  const holdMs = this.capabilities.holdMs;
  assert.ok(holdMs !== undefined, 'no store fault holds a call in this scenario');
  // The held call reached the store after the request started; a little more, and it has gone on (or failed) there.
  const over = Date.parse(this.last.startedAt) + holdMs + 300;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, over - Date.now())));
});

Then(
  "the answer is 503 service_unavailable within the profile's maxStoreWaitMs, long before the store answers",
  'CR-8.12',
  function (this: ConformanceWorld) {
    const bound = this.profile.maxStoreWaitMs ?? DEFAULT_MAX_STORE_WAIT_MS;
    const answer = answered(this.last);
    const { durationMs } = this.last;
    if (durationMs > bound) {
      throw new RequirementFailure(
        'CR-8.12',
        `the store held the call ${this.capabilities.holdMs ?? '?'} ms and the target answered ${answer.status} (${kindOf(this.last)}) after ${durationMs} ms: a store call that does not answer within the target's bound is answered 503 at that bound, never held as long as the store (the profile's maxStoreWaitMs: ${bound} ms): ${describeExchange(this.last)}`,
      );
    }
    this.notes.push(`answered after ${durationMs} ms; service_unavailable message: ${expectServiceUnavailable(this.last, 'CR-8.12')}`);
  },
);

When('the store is back', STORE_FAULT, async function (this: ConformanceWorld) {
  await this.capabilities.storeBack();
});

Then('the answer is 503 service_unavailable with Retry-After 1', SERVICE_UNAVAILABLE, function (this: ConformanceWorld) {
  this.notes.push(`service_unavailable message: ${expectServiceUnavailable(this.last)}`);
});

Then("the target answered the charge's payment_intent.succeeded event with 5xx", 'CR-14.2', async function (this: ConformanceWorld) {
  const view = this.capabilities;
  const chargeId = await view.chargeId();
  const record = await view.deliveredEvent(chargeId);
  assert.ok(record, `the processor's payment_intent.succeeded event of ${chargeId} never reached ${this.webhookUrl}`);
  const statuses = record.attempts.filter((attempt) => attempt.url === this.webhookUrl).map((attempt) => attempt.status ?? attempt.error);
  assert.ok(statuses.every((status) => typeof status === 'number' && status >= 500), `while the store fails, a verified event is answered 5xx; got ${statuses.join(', ')}`);
  // "the processor delivers that event again" redelivers it.
  this.robustness.lastEventId = record.event.id;
});

/** The rows of a records table: type, amount, and paymentIntentId (`$charge`: the scenario's charge) or resource. */
async function expectedRows(world: ConformanceWorld, table: DataTable): Promise<ExpectedRecord[]> {
  const rows: ExpectedRecord[] = [];
  for (const { type = '', amount = '', currency = '', paymentIntentId = '', resource = '' } of table.hashes()) {
    const intent = paymentIntentId === '$charge' ? await world.capabilities.chargeId() : paymentIntentId;
    rows.push({ type, amount: Number(amount), currency, ...(intent ? { paymentIntentId: intent } : {}), ...(resource ? { resource } : {}) });
  }
  return rows;
}

/** A record the target answered, as a row to expect again. */
const asExpected = (record: Record<string, unknown>): ExpectedRecord => ({
  type: String(record.type),
  amount: Number(record.amount),
  currency: String(record.currency),
  ...(record.type === 'topup' ? { paymentIntentId: String(record.paymentIntentId ?? record.stripePaymentIntentId) } : { resource: String(record.resource) }),
});

async function expectNow(world: ConformanceWorld, expected: ExpectedRecord[]): Promise<void> {
  const { records } = await world.capabilities.records();
  expectRecords(records, expected, world.card().clientId);
}

When("I note the client's transaction records", RECORDS, async function (this: ConformanceWorld) {
  const view = this.capabilities;
  view.noted = await view.records();
});

Then("the client's transaction records are:", RECORDS, async function (this: ConformanceWorld, table: DataTable) {
  await expectNow(this, await expectedRows(this, table));
});

Then("the client's transaction records are as before", RECORDS, async function (this: ConformanceWorld) {
  const noted = this.capabilities.noted;
  assert.ok(noted, "note the client's transaction records first");
  await expectNow(this, noted.records.map(asExpected));
});

Then("the client's transaction records are as before plus:", RECORDS, async function (this: ConformanceWorld, table: DataTable) {
  const noted = this.capabilities.noted;
  assert.ok(noted, "note the client's transaction records first");
  await expectNow(this, [...noted.records.map(asExpected), ...(await expectedRows(this, table))]);
});

Then("the client's record has balance {int} {word} and topUps {int}", 'CR-11.7', async function (this: ConformanceWorld, balance: number, currency: string, topUps: number) {
  expectClientRecord((await this.capabilities.records()).client, { [currency]: balance }, topUps);
});

Then("the client's balance is its top-ups minus its deductions", 'CR-11.8', async function (this: ConformanceWorld) {
  const { client, records } = await this.capabilities.records();
  expectBalanceReconciles(client, records);
});
