// Then steps about the processor journal of the last request (or of the whole scenario when the step says so).
import assert from 'node:assert/strict';
import { checksFor, firstOf } from '../world/check.ts';
import { answered } from '../world/judge.ts';
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
import { Then } from './define.ts';

/**
 * No processor call for the request: the requirements that end it before the new-payment path (a malformed or invalid
 * payload, a free route, the credits path, a refused top-up, a store outage before the charge) and say it calls nothing.
 */
const NO_PROCESSOR_CALL = firstOf(
  [
    'CR-3.10', 'CR-4.4', 'CR-3.5', 'CR-3.11', 'CR-4.2', 'CR-4.3', 'CR-4.5', 'CR-5.8', 'CR-6.2', 'CR-6.3', 'CR-7.1', 'CR-7.26',
    'CR-3.6', 'CR-3.7', 'CR-3.8', 'CR-3.4', 'CR-4.10', 'CR-6.6', 'CR-6.9', 'CR-7.27', 'CR-9.4', 'CR-12.2', 'CR-13.10', 'CR-13.15', 'CR-13.16',
    'CR-13.19', 'CR-13.25', 'CR-13.29', 'CR-13.31', 'CR-13.33', 'CR-13.36', 'CR-13.37', 'CR-13.41',
  ],
  'CR-4.5',
);

/** No PaymentIntent for the request: answers before the charge (CR-7.26), a balance spent first (CR-7.4), a store outage. */
const NO_INTENT = firstOf(['CR-7.2', 'CR-7.4', 'CR-7.26', 'CR-7.21', 'CR-7.22', 'CR-13.20', 'CR-13.24', 'CR-14.3', 'CR-14.5'], 'CR-7.26');

Then('no request reached the processor', NO_PROCESSOR_CALL, async function (this: ConformanceWorld) {
  expectNoRequest(await this.processor.entries());
});

Then('the processor retrieved {card} exactly once', firstOf(['CR-7.2', 'CR-7.4'], 'CR-7.2'), async function (this: ConformanceWorld, role: CardRole) {
  expectRetrievedOnce(await this.processor.entries(), this.card(role).paymentMethodId);
});

Then(
  'the processor made no customer request',
  // After a failed retrieval or an unknown PaymentMethod (CR-7.2; without a card fingerprint, strict: CR-13.24), or a balance spent first (CR-7.4).
  firstOf(['CR-7.2', 'CR-7.4', 'CR-7.26', 'CR-13.24'], 'CR-7.26'),
  async function (this: ConformanceWorld) {
    expectNoCustomerRequest(await this.processor.entries());
  },
);

Then("the processor searched customers for the card's client by metadata", 'CR-7.19', async function (this: ConformanceWorld) {
  expectCustomerSearch(await this.processor.entries(), this.expect.metadataKey, this.card().clientId);
});

Then("the processor created a customer with the card and the client's metadata", 'CR-7.19', async function (this: ConformanceWorld) {
  const card = this.card();
  expectCustomerCreated(await this.processor.entries(), card.paymentMethodId, { [this.expect.metadataKey]: card.clientId });
});

Then('the processor created no customer', 'CR-7.19', async function (this: ConformanceWorld) {
  expectNoCustomerCreated(await this.processor.entries());
});

Then('no PaymentIntent was created', NO_INTENT, async function (this: ConformanceWorld) {
  expectNoIntent(await this.processor.entries());
});

Then('no PaymentIntent was created in this scenario', NO_INTENT, async function (this: ConformanceWorld) {
  expectNoIntent(await this.processor.scenarioEntries());
});

Then('no PaymentIntent succeeded in this scenario', firstOf(['CR-7.7', 'CR-7.20', 'CR-13.35'], 'CR-7.20'), async function (this: ConformanceWorld) {
  expectNoSucceededIntent(await this.processor.scenarioEntries());
});

Then(
  'the processor created exactly {int} PaymentIntent(s)',
  // One charge (CR-7.6), after a balance that did not pay (CR-6.4); a retry replays it (CR-7.16); one at a time (CR-14.7).
  firstOf(['CR-6.4', 'CR-7.6', 'CR-7.16', 'CR-14.7'], 'CR-7.6'),
  async function (this: ConformanceWorld, count: number) {
    expectIntentCount(await this.processor.entries(), count);
  },
);

Then('the PaymentIntent has amount {int} and currency {string}', 'CR-7.6', async function (this: ConformanceWorld, amount: number, currency: string) {
  const intent = singleIntent(await this.processor.entries());
  // The amount of CR-7.14 is the conversion of CR-1.3: one observation, a check of each.
  const amountIs = () => assert.equal(intent.params.amount, String(amount), 'amount in minor units: the top-up units / 100, rounded up');
  checksFor([
    ['CR-7.14', amountIs],
    ['CR-1.3', amountIs],
    ['CR-7.15', () => assert.equal(intent.params.currency, currency, "currency: the route's")],
  ]);
});

Then('the PaymentIntent charges {card} for the customer', 'CR-7.15', async function (this: ConformanceWorld, role: CardRole) {
  const entries = await this.processor.entries();
  const intent = singleIntent(entries);
  assert.equal(intent.params.payment_method, this.card(role).paymentMethodId, 'payment_method');
  assert.equal(intent.params.customer, customerOf(entries), 'customer = the customer found or created for this request');
});

Then("the PaymentIntent's description is {string}", 'CR-7.18', async function (this: ConformanceWorld, description: string) {
  // `$serviceName` is the target's declared service name (a service-defined value), else the profile's.
  const expected = description.replaceAll('$serviceName', this.expect.serviceName);
  const intent = singleIntent(await this.processor.entries());
  assert.equal(intent.params.description, expected, 'the PaymentIntent description');
});

Then('the PaymentIntent is confirmed at once with redirects disallowed and automatic capture', 'CR-7.15', async function (this: ConformanceWorld) {
  expectConfirmedWithoutRedirects(singleIntent(await this.processor.entries()));
});

Then("the PaymentIntent's metadata holds the clientId and the top-up {string}", 'CR-7.17', async function (this: ConformanceWorld, units: string) {
  const metadata = singleIntent(await this.processor.entries()).params.metadata as Record<string, unknown> | undefined;
  assert.equal(metadata?.credit402_client_id, this.card().clientId, 'metadata.credit402_client_id');
  assert.equal(metadata?.credit402_top_up_units, units, 'metadata.credit402_top_up_units');
});

Then('the PaymentIntent was sent with an idempotency key of at most 255 characters', 'CR-7.16', async function (this: ConformanceWorld) {
  const key = singleIntent(await this.processor.entries()).idempotencyKey;
  assert.ok(key !== undefined && key !== '' && key.length <= 255, `idempotency key: ${String(key)}`);
});

Then('the PaymentIntent is for the customer of the first top-up', 'CR-7.19', async function (this: ConformanceWorld) {
  const [first, last] = firstAndLastIntent(await this.processor.scenarioEntries());
  assert.equal(last.params.customer, first.params.customer, 'the customer found by metadata is reused');
});

Then("its idempotency key differs from the first attempt's", 'CR-7.16', async function (this: ConformanceWorld) {
  const [first, last] = firstAndLastIntent(await this.processor.scenarioEntries());
  assert.ok(last.idempotencyKey, 'the PaymentIntent creation carries an idempotency key');
  assert.notEqual(last.idempotencyKey, first.idempotencyKey, 'a different (clientId, n, paymentMethodId, route, units, currency) gives a different key');
});

Then("its idempotency key is the first attempt's", 'CR-7.16', async function (this: ConformanceWorld) {
  const [first, last] = firstAndLastIntent(await this.processor.scenarioEntries());
  assert.ok(first.idempotencyKey, 'the PaymentIntent creation carries an idempotency key');
  assert.equal(last.idempotencyKey, first.idempotencyKey, 'a retry before the credit sends the same key');
});

Then("the error message is the processor's message", firstOf(['CR-7.20', 'CR-8.6'], 'CR-8.6'), async function (this: ConformanceWorld) {
  const expected = processorErrorMessage(await this.processor.entries());
  assert.equal((answered(this.last).json as Record<string, unknown> | undefined)?.error, expected, "the processor's message, verbatim");
});
