// Then steps about the processor journal of the last request (or of the whole scenario when the step says so).
import assert from 'node:assert/strict';
import { Then } from '@cucumber/cucumber';
import { checkFor } from '../world/check.ts';
import {
  customerOf,
  expectConfirmedWithoutRedirects,
  expectCustomerCreated,
  expectCustomerSearch,
  expectIntentCount,
  expectNoCustomerCreated,
  expectNoCustomerRequest,
  expectNoIntent,
  expectNoRequest,
  expectNoSucceededIntent,
  expectRetrievedOnce,
  firstAndLastIntent,
  processorErrorMessage,
  singleIntent,
} from '../world/processor-judge.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';

Then('no request reached the processor', async function (this: ConformanceWorld) {
  expectNoRequest(await this.processor.entries());
});

Then('the processor retrieved {card} exactly once', async function (this: ConformanceWorld, role: CardRole) {
  expectRetrievedOnce(await this.processor.entries(), this.card(role).paymentMethodId);
});

Then('the processor made no customer request', async function (this: ConformanceWorld) {
  expectNoCustomerRequest(await this.processor.entries());
});

Then("the processor searched customers for the card's client by metadata", async function (this: ConformanceWorld) {
  expectCustomerSearch(await this.processor.entries(), this.expect.metadataKey, this.card().clientId);
});

Then("the processor created a customer with the card and the client's metadata", async function (this: ConformanceWorld) {
  const card = this.card();
  expectCustomerCreated(await this.processor.entries(), card.paymentMethodId, { [this.expect.metadataKey]: card.clientId });
});

Then('the processor created no customer', async function (this: ConformanceWorld) {
  expectNoCustomerCreated(await this.processor.entries());
});

Then('no PaymentIntent was created', async function (this: ConformanceWorld) {
  expectNoIntent(await this.processor.entries());
});

Then('no PaymentIntent was created in this scenario', async function (this: ConformanceWorld) {
  expectNoIntent(await this.processor.scenarioEntries());
});

Then('no PaymentIntent succeeded in this scenario', async function (this: ConformanceWorld) {
  expectNoSucceededIntent(await this.processor.scenarioEntries());
});

Then('the processor created exactly {int} PaymentIntent(s)', async function (this: ConformanceWorld, count: number) {
  expectIntentCount(await this.processor.entries(), count);
});

Then('the PaymentIntent has amount {int} and currency {string}', async function (this: ConformanceWorld, amount: number, currency: string) {
  const intent = singleIntent(await this.processor.entries());
  assert.equal(intent.params.amount, String(amount), 'amount in minor units (CR-7.14)');
  assert.equal(intent.params.currency, currency, 'currency');
});

Then('the PaymentIntent charges {card} for the customer', async function (this: ConformanceWorld, role: CardRole) {
  const entries = await this.processor.entries();
  const intent = singleIntent(entries);
  assert.equal(intent.params.payment_method, this.card(role).paymentMethodId, 'payment_method');
  assert.equal(intent.params.customer, customerOf(entries), 'customer = the customer found or created for this request');
});

Then("the PaymentIntent's description is {string}", async function (this: ConformanceWorld, description: string) {
  // `$serviceName` is the target's declared service name (a service-defined value), else the profile's.
  const expected = description.replaceAll('$serviceName', this.expect.serviceName);
  const intent = singleIntent(await this.processor.entries());
  checkFor('CR-7.18', () => assert.equal(intent.params.description, expected, 'the PaymentIntent description'));
});

Then('the PaymentIntent is confirmed at once with redirects disallowed and automatic capture', async function (this: ConformanceWorld) {
  const intent = singleIntent(await this.processor.entries());
  checkFor('CR-7.15', () => expectConfirmedWithoutRedirects(intent));
});

Then("the PaymentIntent's metadata holds the clientId and the top-up {string}", async function (this: ConformanceWorld, units: string) {
  const metadata = singleIntent(await this.processor.entries()).params.metadata as Record<string, unknown> | undefined;
  checkFor('CR-7.17', () => {
    assert.equal(metadata?.credit402_client_id, this.card().clientId, 'metadata.credit402_client_id');
    assert.equal(metadata?.credit402_top_up_units, units, 'metadata.credit402_top_up_units');
  });
});

Then('the PaymentIntent was sent with an idempotency key of at most 255 characters', async function (this: ConformanceWorld) {
  const key = singleIntent(await this.processor.entries()).idempotencyKey;
  checkFor('CR-7.16', () => assert.ok(key !== undefined && key !== '' && key.length <= 255, `idempotency key: ${String(key)}`));
});

Then('the PaymentIntent is for the customer of the first top-up', async function (this: ConformanceWorld) {
  const [first, last] = firstAndLastIntent(await this.processor.scenarioEntries());
  assert.equal(last.params.customer, first.params.customer, 'the customer found by metadata is reused (CR-7.19)');
});

Then("its idempotency key differs from the first attempt's", async function (this: ConformanceWorld) {
  const [first, last] = firstAndLastIntent(await this.processor.scenarioEntries());
  checkFor('CR-7.16', () => {
    assert.ok(last.idempotencyKey, 'the PaymentIntent creation carries an idempotency key');
    assert.notEqual(last.idempotencyKey, first.idempotencyKey, 'a different (clientId, n, paymentMethodId, route, units, currency) gives a different key');
  });
});

Then("its idempotency key is the first attempt's", async function (this: ConformanceWorld) {
  const [first, last] = firstAndLastIntent(await this.processor.scenarioEntries());
  checkFor('CR-7.16', () => {
    assert.ok(first.idempotencyKey, 'the PaymentIntent creation carries an idempotency key');
    assert.equal(last.idempotencyKey, first.idempotencyKey, 'a retry before the credit sends the same key');
  });
});

Then("the error message is the processor's message", async function (this: ConformanceWorld) {
  const expected = processorErrorMessage(await this.processor.entries());
  assert.equal((this.answer.json as Record<string, unknown> | undefined)?.error, expected, "the processor's message, verbatim");
});
