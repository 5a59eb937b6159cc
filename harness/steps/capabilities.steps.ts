// Steps of the optional capabilities (PROFILE.md, Capabilities): store outages on demand and the client's records.
import assert from 'node:assert/strict';
import { defineParameterType, Given, Then, When, type DataTable } from '@cucumber/cucumber';
import { expectBalanceReconciles, expectClientRecord, expectRecords, expectServiceUnavailable, type ExpectedRecord } from '../world/capability-judge.ts';
import { checkFor } from '../world/check.ts';
import type { StoreOperation } from '../world/control-routes.ts';
import type { ConformanceWorld } from '../world/world.ts';

defineParameterType({
  name: 'storeOperation',
  regexp: /deductBalance|addBalance|ensureClient|getClient|creditTopUp|recordTransaction|listTransactions/,
  transformer: (text: string): StoreOperation => text as StoreOperation,
});

Given("the store fails every {storeOperation} for the card's client", async function (this: ConformanceWorld, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation });
});

Given("the store fails every {storeOperation} for the card's client after the first", async function (this: ConformanceWorld, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation, skip: 1 });
});

Given("the store loses the reply of the next {storeOperation} for the card's client", async function (this: ConformanceWorld, operation: StoreOperation) {
  await this.capabilities.arm({ clientId: this.card().clientId, operation, count: 1, replyLost: true });
});

When('the store is back', async function (this: ConformanceWorld) {
  await this.capabilities.storeBack();
});

Then('the answer is 503 service_unavailable with Retry-After 1', function (this: ConformanceWorld) {
  this.notes.push(`service_unavailable message: ${expectServiceUnavailable(this.last)}`);
});

Then("the target answered the charge's payment_intent.succeeded event with 5xx", async function (this: ConformanceWorld) {
  const view = this.capabilities;
  const chargeId = await view.chargeId();
  const record = await view.deliveredEvent(chargeId);
  assert.ok(record, `the processor's payment_intent.succeeded event of ${chargeId} never reached ${this.webhookUrl}`);
  const statuses = record.attempts.filter((attempt) => attempt.url === this.webhookUrl).map((attempt) => attempt.status ?? attempt.error);
  checkFor('CR-14.2', () => assert.ok(statuses.every((status) => typeof status === 'number' && status >= 500), `while the store fails, a verified event is answered 5xx; got ${statuses.join(', ')}`));
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

When("I note the client's transaction records", async function (this: ConformanceWorld) {
  const view = this.capabilities;
  view.noted = await view.records();
});

Then("the client's transaction records are:", async function (this: ConformanceWorld, table: DataTable) {
  await expectNow(this, await expectedRows(this, table));
});

Then("the client's transaction records are as before", async function (this: ConformanceWorld) {
  const noted = this.capabilities.noted;
  assert.ok(noted, "note the client's transaction records first");
  await expectNow(this, noted.records.map(asExpected));
});

Then("the client's transaction records are as before plus:", async function (this: ConformanceWorld, table: DataTable) {
  const noted = this.capabilities.noted;
  assert.ok(noted, "note the client's transaction records first");
  await expectNow(this, [...noted.records.map(asExpected), ...(await expectedRows(this, table))]);
});

Then("the client's record has balance {int} {word} and topUps {int}", async function (this: ConformanceWorld, balance: number, currency: string, topUps: number) {
  expectClientRecord((await this.capabilities.records()).client, { [currency]: balance }, topUps);
});

Then("the client's balance is its top-ups minus its deductions", async function (this: ConformanceWorld) {
  const { client, records } = await this.capabilities.records();
  expectBalanceReconciles(client, records);
});
